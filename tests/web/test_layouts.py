"""Every screen at a phone's width (390 px) and a desktop's (1280 px): nothing wider than the
viewport (no sideways scrolling), no serious axe-core violation, a screenshot of each. The
chat's conversation list folds away behind a toggle on the phone; the assistant editor is split
into sections, one shown at a time."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable

import httpx
import pytest
from playwright.async_api import BrowserContext, Page, expect

from agentur.runtime import Runtime
from tests.assistant.definitions import shop_definition
from tests.conftest import Member, Tenants
from tests.web.browser import screenshot, serious_accessibility_violations
from tests.web.workspace_app import open_signed_in, sign_in

PHONE = {"width": 390, "height": 844}
DESKTOP = {"width": 1280, "height": 800}
LONG_NAME = "Offerte-Gartenpflege-Heckenschnitt-und-Rasenmaehen-Fruehling-2026-final-v3.txt"


async def _seed(base_url: str, member: Member) -> None:
    """A folder with files (one with a long name and many tags), indexed, and an assistant."""
    # 60 s, not httpx's 5: creating the assistant trains its router, slow on a busy machine
    async with httpx.AsyncClient(base_url=base_url, headers=member.headers, timeout=60) as api:
        folder = (await api.post("/v1/folders", json={"name": "Offerten"})).json()
        ids = []
        for name in (LONG_NAME, "notiz.txt"):
            uploaded = await api.post(
                "/v1/files",
                data={"folder_id": folder["id"], "tags": ["offerte", "garten", "2026", "kunde"]},
                files={"file": (name, b"Heckenpflege im Fruehling", "text/plain")},
            )
            assert uploaded.status_code == 201, uploaded.text
            ids.append(uploaded.json()["id"])
        created = await api.post("/v1/assistants", json=shop_definition())
        assert created.status_code == 201, created.text
        for _ in range(240):  # the search screen needs the files indexed
            states = [(await api.get(f"/v1/files/{i}/index")).json() for i in ids]
            if all(state["status"] == "indexed" for state in states):
                return
            await asyncio.sleep(0.25)
        raise AssertionError(f"not indexed: {states}")


async def _overflow(page: Page) -> list[str]:
    """The page's width beyond the viewport, and the widest elements that cause it."""
    return await page.evaluate(
        """() => {
          const limit = document.documentElement.clientWidth;
          if (document.documentElement.scrollWidth <= limit) return [];
          return [...document.querySelectorAll("body *")]
            .filter((e) => e.getBoundingClientRect().right > limit + 1)
            .slice(0, 8)
            .map((e) => `${e.tagName.toLowerCase()}.${e.className} ${Math.round(
              e.getBoundingClientRect().right)}px`);
        }"""
    )


async def _check(page: Page, name: str) -> None:
    await page.wait_for_load_state("networkidle")
    width = await page.evaluate("() => window.innerWidth")
    assert await _overflow(page) == [], f"{name} at {width} px scrolls sideways"
    await screenshot(page, f"{name}-{width}")
    assert await serious_accessibility_violations(page) == [], f"{name} at {width} px"


async def _files(page: Page) -> None:
    await page.get_by_role("link", name="Dateien").click()
    await page.get_by_role("button", name="Offerten", exact=True).click()
    await expect(page.locator("tr", has_text="notiz.txt")).to_be_visible()


async def _chat(page: Page) -> None:
    await page.get_by_role("link", name="Agent-Chat").click()
    await expect(page.get_by_label("Ihre Nachricht")).to_be_visible()


async def _search(page: Page) -> None:
    await page.get_by_role("link", name="Wissenssuche").click()
    await page.get_by_label("Suchbegriff").fill("Heckenpflege")
    await page.get_by_role("button", name="Suchen").click()
    await expect(page.locator(".hit").first).to_be_visible()


async def _assistants(page: Page) -> None:
    await page.get_by_role("link", name="Assistenten").click()
    await expect(page.get_by_role("rowheader", name="Shop helper")).to_be_visible()


async def _editor(page: Page) -> None:
    await page.get_by_role("button", name="Shop helper bearbeiten").click()
    await expect(page.get_by_role("tab", name="Allgemein")).to_have_attribute(
        "aria-selected", "true"
    )


async def _usage(page: Page) -> None:
    await page.get_by_role("link", name="Verbrauch").click()
    await expect(page.get_by_role("heading", name="Verbrauch", exact=True)).to_be_visible()


SCREENS: list[tuple[str, Callable[[Page], Awaitable[None]]]] = [
    ("layout-files", _files),
    ("layout-chat", _chat),
    ("layout-search", _search),
    ("layout-assistants", _assistants),
    ("layout-assistant-editor", _editor),
    ("layout-usage", _usage),
]


@pytest.mark.parametrize("viewport", [PHONE, DESKTOP], ids=["390px", "1280px"])
async def test_every_screen_fits_the_viewport(
    base_url: str,
    browser_context: BrowserContext,
    runtime: Runtime,
    tenants: Tenants,
    indexing: None,
    viewport: dict[str, int],
) -> None:
    member = await tenants.member("Gartenbau Muster")
    await _seed(base_url, member)
    sign_in_page = await browser_context.new_page()
    await sign_in_page.set_viewport_size(viewport)
    await sign_in_page.goto(base_url + "/")
    await expect(sign_in_page.get_by_role("heading", name="Anmelden")).to_be_visible()
    await _check(sign_in_page, "layout-sign-in")
    await sign_in(sign_in_page, member.key)
    page = sign_in_page
    await page.get_by_role("navigation", name="Hauptnavigation").wait_for()
    for name, open_screen in SCREENS:
        await open_screen(page)
        await _check(page, name)


async def test_the_chats_conversation_list_folds_away_on_a_phone(
    base_url: str, browser_context: BrowserContext, tenants: Tenants
) -> None:
    member = await tenants.member()
    page = await open_signed_in(browser_context, base_url, member.key, "chat")
    await page.set_viewport_size(PHONE)
    toggle = page.get_by_role("button", name="Unterhaltungen")
    await expect(toggle).to_have_attribute("aria-expanded", "false")
    await expect(page.get_by_role("button", name="Neue Unterhaltung")).to_be_hidden()
    # the message field comes before any list, right under the heading
    await expect(page.get_by_label("Ihre Nachricht")).to_be_in_viewport()
    await toggle.click()
    await expect(toggle).to_have_attribute("aria-expanded", "true")
    await expect(page.get_by_role("button", name="Neue Unterhaltung")).to_be_visible()
    await _check(page, "layout-chat-list-open")
    # on a desktop the list is always there, without a toggle
    await page.set_viewport_size(DESKTOP)
    await expect(toggle).to_be_hidden()
    await expect(page.get_by_role("button", name="Neue Unterhaltung")).to_be_visible()
