"""The visitor widget on a website of its own, for the browser tests: a test page served from
a second origin (another 127.0.0.1 port) embeds `/widget.js` with a publishable key of an
assistant the test creates through the API."""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass
from typing import Any

import httpx
from playwright.async_api import Locator, Page, expect
from starlette.applications import Starlette
from starlette.responses import HTMLResponse
from starlette.routing import Route

from tests.api.live_server import live_server
from tests.assistant.definitions import shop_definition
from tests.conftest import Tenants

RETURNS_PAGE = "https://shop.example/help/returns"
LIVE_CHAT = "https://chat.shop.example/support"
# A host page with rude global rules: none may reach into the widget (Shadow DOM).
PAGE = """<!doctype html>
<html lang="en">
<head><meta charset="utf-8"><title>Example shop</title>
<style>
  * {{ font-family: serif !important; }}
  button {{ display: none !important; }}
  p {{ color: #c00 !important; }}
</style></head>
<body>
<header><h1>Example shop</h1></header>
<main><p>Welcome to our shop.</p></main>
<script src="{widget}" data-assistant="{assistant}" data-key="{key}" {extra}async></script>
</body>
</html>"""


@dataclass
class Shop:
    url: str  # the test page, on its own origin
    assistant_id: str


@asynccontextmanager
async def shop_page(
    base_url: str,
    tenants: Tenants,
    allowed: list[str] | None = None,
    language: str = "",
    definition: dict[str, Any] | None = None,
    policy: str | None = None,
) -> AsyncIterator[Shop]:
    """Serves the page (a second uvicorn) embedding an assistant that allows `allowed`
    (default: exactly the page's own origin), optionally with `data-language`; the
    assistant's definition is the shop's (its FAQ with a web page) unless one is given;
    `policy`: the page's own Content-Security-Policy."""
    holder: dict[str, str] = {}

    async def page(_: object) -> HTMLResponse:
        headers = {"Content-Security-Policy": policy} if policy else None
        return HTMLResponse(PAGE.format(**holder), headers=headers)

    async with live_server(Starlette(routes=[Route("/", page)])) as origin:
        admin = await tenants.member()
        if definition is None:
            definition = shop_definition()
            definition["faqs"][0]["url"] = RETURNS_PAGE
        definition["allowed_origins"] = [origin] if allowed is None else allowed
        # Creating an assistant trains its router (seconds on a loaded 2-core machine).
        async with httpx.AsyncClient(base_url=base_url, headers=admin.headers, timeout=60) as api:
            created = await api.post("/v1/assistants", json=definition)
            assert created.status_code == 201, created.text
            assistant_id = created.json()["id"]
            key = await api.post(f"/v1/assistants/{assistant_id}/visitor-keys")
        holder.update(
            widget=f"{base_url}/widget.js",
            assistant=assistant_id,
            key=key.json()["key"],
            extra=f'data-language="{language}" ' if language else "",
        )
        yield Shop(f"{origin}/", assistant_id)


def widget_of(page: Page) -> Locator:
    return page.locator("agentur-widget")  # Playwright's CSS pierces the open shadow root


async def focused(page: Page) -> str:
    """The focused element inside the widget, as `tag.class text`."""
    return await page.evaluate(
        """() => { const e = document.querySelector('agentur-widget').shadowRoot.activeElement;
        return e ? `${e.tagName.toLowerCase()}.${e.className} ${e.textContent}`.trim() : ''; }"""
    )


async def say(page: Page, text: str) -> Locator:
    """Sends `text` with Enter; the finished answer's article."""
    widget = widget_of(page)
    answers = widget.locator("article.assistant")
    before = await answers.count()
    await widget.get_by_label("Ihre Nachricht").fill(text)
    await widget.get_by_label("Ihre Nachricht").press("Enter")
    answer = answers.nth(before)
    # a first message loads the language detector and the router's model: slow on a busy machine
    await expect(answer).not_to_have_attribute("aria-busy", "true", timeout=30_000)
    return answer


async def open_widget(page: Page, url: str, open_chat: str = "Chat öffnen") -> Locator:
    await page.goto(url)
    widget = widget_of(page)
    await widget.get_by_role("button", name=open_chat).click()
    await expect(widget.get_by_role("dialog", name="Chat")).to_be_visible()
    return widget
