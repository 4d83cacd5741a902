"""The visitor widget on a website of its own: a test page served from a second origin (another
127.0.0.1 port) embeds `/widget.js` with a publishable key. No model is configured, so the
keyword router decides: a FAQ (answer verbatim, its source shown), a flow with a choice
(clicked), and an escalation (menu with opening hours, e-mail delivered to a real SMTP server).
A page on an origin the assistant does not allow gets no conversation."""

from __future__ import annotations

import re
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass

import httpx
import pytest
from playwright.async_api import BrowserContext, Locator, Page, expect
from sqlalchemy import func, select
from starlette.applications import Starlette
from starlette.responses import HTMLResponse
from starlette.routing import Route

from agentur.assistant.definition import OpeningHours
from agentur.assistant.opening_hours import is_open
from agentur.assistant.phrases import PHRASES
from agentur.context import utc_now
from agentur.runtime import Runtime
from agentur.storage.models.assistant import AssistantConversation
from tests.api.live_server import live_server
from tests.assistant.definitions import RETURNS_ANSWER, shop_definition
from tests.assistant.smtp_inbox import Inbox, running_inbox
from tests.conftest import Tenants
from tests.web.browser import screenshot, serious_accessibility_violations

RETURNS_PAGE = "https://shop.example/help/returns"
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
    base_url: str, tenants: Tenants, allowed: list[str] | None = None, language: str = ""
) -> AsyncIterator[Shop]:
    """Serves the page (a second uvicorn) embedding an assistant that allows `allowed`
    (default: exactly the page's own origin), optionally with `data-language`."""
    holder: dict[str, str] = {}

    async def page(_: object) -> HTMLResponse:
        return HTMLResponse(PAGE.format(**holder))

    async with live_server(Starlette(routes=[Route("/", page)])) as origin:
        admin = await tenants.member()
        definition = shop_definition(allowed_origins=[origin] if allowed is None else allowed)
        definition["faqs"][0]["url"] = RETURNS_PAGE
        async with httpx.AsyncClient(base_url=base_url, headers=admin.headers) as api:
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


async def _conversations(runtime: Runtime, assistant_id: str) -> int:
    async with runtime.database.session() as session:
        query = select(func.count(AssistantConversation.id)).where(
            AssistantConversation.assistant_id == assistant_id
        )
        return int(await session.scalar(query) or 0)


def _widget(page: Page) -> Locator:
    return page.locator("agentur-widget")  # Playwright's CSS pierces the open shadow root


async def _focused(page: Page) -> str:
    """The focused element inside the widget, as `tag.class text`."""
    return await page.evaluate(
        """() => { const e = document.querySelector('agentur-widget').shadowRoot.activeElement;
        return e ? `${e.tagName.toLowerCase()}.${e.className} ${e.textContent}`.trim() : ''; }"""
    )


async def _say(page: Page, text: str) -> Locator:
    """Sends `text` with Enter; the finished answer's article."""
    widget = _widget(page)
    answers = widget.locator("article.assistant")
    before = await answers.count()
    await widget.get_by_label("Ihre Nachricht").fill(text)
    await widget.get_by_label("Ihre Nachricht").press("Enter")
    answer = answers.nth(before)
    await expect(answer).not_to_have_attribute("aria-busy", "true")
    return answer


async def _open(page: Page, url: str, open_chat: str = "Chat öffnen") -> Locator:
    await page.goto(url)
    widget = _widget(page)
    await widget.get_by_role("button", name=open_chat).click()
    await expect(widget.get_by_role("dialog", name="Chat")).to_be_visible()
    return widget


async def test_faq_flow_and_escalation_from_another_origin(
    base_url: str,
    tenants: Tenants,
    runtime: Runtime,
    browser_context: BrowserContext,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    with running_inbox() as (smtp_port, inbox):
        monkeypatch.setenv("AGENTUR_SMTP_HOST", "127.0.0.1")
        monkeypatch.setenv("AGENTUR_SMTP_PORT", str(smtp_port))
        monkeypatch.setenv("AGENTUR_SMTP_STARTTLS", "false")
        async with shop_page(base_url, tenants) as shop:
            page = await browser_context.new_page()
            widget = await _open(page, shop.url)
            await _conversation(page, widget, inbox)
            await _keyboard_and_tab(page, widget, shop, runtime, browser_context)


async def _conversation(page: Page, widget: Locator, inbox: Inbox) -> None:
    # Opened from the keyboard's point of view: focus is in the message field, UI in German
    # (the browser's language), the host page's rules did not get in.
    assert (await _focused(page)).startswith("textarea")
    await expect(widget.locator("article.assistant").first).to_have_text(
        re.compile("Hallo! Wie können wir Ihnen helfen?")
    )
    font = "e => getComputedStyle(e).fontFamily"
    widget_font = await widget.locator("button.send").evaluate(font)
    assert "serif" not in widget_font.replace("sans-serif", "")
    page_font = await page.locator("h1").evaluate(font)
    assert page_font == "serif"  # nor did the widget's rules get out
    await screenshot(page, "widget-open")
    assert await serious_accessibility_violations(page) == []

    # FAQ: the stored answer verbatim, the FAQ as its source, the thinking panel.
    faq = await _say(page, "How can I return an item?")
    await expect(faq.locator("p.text")).to_have_text(RETURNS_ANSWER)
    source = faq.locator(".sources li").get_by_role("link")
    await expect(source).to_have_text("Häufige Frage: How can I return an item?")
    await expect(source).to_have_attribute("href", RETURNS_PAGE)
    await expect(source).to_have_attribute("target", "_blank")
    thinking = faq.locator("details.thinking")
    await thinking.locator("summary").click()
    await expect(thinking.locator("li").first).to_have_text(PHRASES["thinking_classify"]["en"])

    # A flow: a question, then a choice answered by clicking its button.
    started = await _say(page, "Where is my order?")
    await expect(started.locator("p.text")).to_have_text(
        "Let's find your order.\nWhat is your order number?"
    )
    asked = await _say(page, "12345")
    await expect(asked.locator("p.text")).to_have_text("How should we notify you?")
    choices = asked.get_by_role("group", name="Antwortmöglichkeiten").get_by_role("button")
    await expect(choices).to_have_text(["E-mail", "Phone"])
    assert await _focused(page) == "button.choice E-mail"  # focus moved to the choice
    await screenshot(page, "widget-flow-choice")
    await choices.first.click()
    done = widget.locator("article.assistant").last
    await expect(done).not_to_have_attribute("aria-busy", "true")
    await expect(done.locator("p.text")).to_have_text(
        re.compile(r"^Order 12345: we will write via email\.\nYou can reach Customer support")
    )
    await expect(choices.first).to_be_disabled()  # answered once

    # Escalation: the help desk's options, open or closed now, with their opening hours.
    person = await _say(page, "I want to talk to a person")
    menu = person.get_by_role("region", name="Kontakt: Customer support")
    await expect(menu).to_be_visible()
    # The options are listed once, in the menu; the text keeps only the introduction.
    await expect(person.locator("p.text")).not_to_contain_text("+41 44 000 00 00")
    await expect(person.locator("p.text")).to_contain_text("Customer support")
    phone = menu.locator("li.option.phone")
    hours = OpeningHours.model_validate(shop_definition()["help_desks"][0]["options"][1]["hours"])
    status = "Jetzt geöffnet" if is_open(hours, utc_now()) else "Jetzt geschlossen"
    await expect(phone.locator(".status")).to_have_text(status)
    await expect(phone.get_by_role("link", name="Anrufen: +41 44 000 00 00")).to_have_attribute(
        "href", "tel:+41440000000"
    )
    await expect(phone.locator(".hours")).to_contain_text("Öffnungszeiten (Europe/Zurich)")
    await expect(phone.locator(".hours li")).to_have_text(["Mo 08:00–17:00"])
    await expect(menu.locator("li.option.chat")).to_contain_text("Live-Chat: queue-1")
    await expect(menu.locator("li.option.chat .hours")).to_have_text("Jederzeit erreichbar")
    await screenshot(page, "widget-escalation")
    assert await serious_accessibility_violations(page) == []

    # E-mail: the desk's address stays on the server; the visitor writes through a form and
    # sees delivered only once the SMTP server took the message.
    email = menu.locator("li.option.email")
    await email.get_by_role("button", name="E-Mail schreiben").click()
    assert (await _focused(page)).startswith("input")
    await email.get_by_label("Ihre E-Mail-Adresse (für die Antwort)").fill("anna@example.test")
    await email.get_by_label("Ihr Anliegen").fill("Please call me about order 12345.")
    await email.get_by_role("button", name="E-Mail senden").click()
    sent = PHRASES["email_sent"]["en"].format(desk="Customer support")
    await expect(email.get_by_role("status")).to_have_text(sent)
    assert len(inbox.messages) == 1
    mail = inbox.messages[0]
    assert mail["To"] == "support@example.test"  # type: ignore[index]
    assert mail["Reply-To"] == "anna@example.test"  # type: ignore[index]
    assert "Please call me about order 12345." in mail.get_payload()  # type: ignore[attr-defined]
    await screenshot(page, "widget-email-sent")


async def _keyboard_and_tab(
    page: Page, widget: Locator, shop: Shop, runtime: Runtime, context: BrowserContext
) -> None:
    # Escape closes the window and gives the focus back to the bubble.
    await page.keyboard.press("Escape")
    await expect(widget.get_by_role("dialog")).to_be_hidden()
    assert (await _focused(page)).startswith("button.bubble")
    bubble = widget.get_by_role("button", name="Chat öffnen")
    await expect(bubble).to_have_attribute("aria-expanded", "false")
    # The conversation belongs to this tab: a reload continues it (sessionStorage keeps the
    # token), another tab starts its own.
    widget = await _open(page, shop.url)  # the same tab, loaded again
    await expect(widget.locator("article.assistant p.text").nth(1)).to_have_text(RETURNS_ANSWER)
    assert await _conversations(runtime, shop.assistant_id) == 1
    other = await context.new_page()
    other_widget = await _open(other, shop.url)
    await expect(other_widget.locator("article")).to_have_count(1)  # the greeting only
    await _say(other, "How can I return an item?")
    assert await _conversations(runtime, shop.assistant_id) == 2


async def test_a_page_on_an_origin_not_allowed_gets_no_conversation(
    base_url: str, tenants: Tenants, runtime: Runtime, browser_context: BrowserContext
) -> None:
    # `data-language` overrides the browser's German.
    allowed = ["https://shop.example"]
    async with shop_page(base_url, tenants, allowed, language="fr") as shop:
        page = await browser_context.new_page()
        widget = await _open(page, shop.url, open_chat="Ouvrir le chat")
        await widget.get_by_label("Votre message").fill("How can I return an item?")
        await widget.get_by_role("button", name="Envoyer").click()
        await expect(widget.get_by_role("alert")).to_have_text(
            "Le chat n'est pas disponible pour le moment. Veuillez réessayer plus tard."
        )
        await expect(widget.locator("article.visitor")).to_have_count(1)
        assert await _conversations(runtime, shop.assistant_id) == 0
