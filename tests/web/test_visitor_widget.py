"""The visitor widget on a website of its own: a test page served from a second origin (another
127.0.0.1 port) embeds `/widget.js` with a publishable key. No model is configured, so the
keyword router decides: a FAQ (answer verbatim, its source shown), a flow with a choice
(clicked), and an escalation (menu with opening hours, e-mail delivered to a real SMTP server).
A page on an origin the assistant does not allow gets no conversation."""

from __future__ import annotations

import re

import pytest
from playwright.async_api import BrowserContext, Locator, Page, expect
from sqlalchemy import func, select

from agentur.assistant.definition import OpeningHours
from agentur.assistant.opening_hours import is_open
from agentur.assistant.phrases import PHRASES
from agentur.context import utc_now
from agentur.runtime import Runtime
from agentur.storage.models.assistant import AssistantConversation
from tests.assistant.definitions import RETURNS_ANSWER, shop_definition
from tests.assistant.smtp_inbox import Inbox, running_inbox
from tests.conftest import Tenants
from tests.reread_settings import reread_settings
from tests.web.browser import screenshot, serious_accessibility_violations
from tests.web.widget_page import (
    LIVE_CHAT,
    RETURNS_PAGE,
    Shop,
    focused,
    open_widget,
    say,
    shop_page,
)


async def _conversations(runtime: Runtime, assistant_id: str) -> int:
    async with runtime.database.session() as session:
        query = select(func.count(AssistantConversation.id)).where(
            AssistantConversation.assistant_id == assistant_id
        )
        return int(await session.scalar(query) or 0)


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
        reread_settings(runtime)
        definition = shop_definition()
        definition["faqs"][0]["url"] = RETURNS_PAGE
        definition["help_desks"][0]["options"][2]["address"] = LIVE_CHAT
        async with shop_page(base_url, tenants, definition=definition) as shop:
            page = await browser_context.new_page()
            widget = await open_widget(page, shop.url)
            await _conversation(page, widget, inbox)
            await _keyboard_and_tab(page, widget, shop, runtime, browser_context)


async def _conversation(page: Page, widget: Locator, inbox: Inbox) -> None:
    # Opened from the keyboard's point of view: focus is in the message field, UI in German
    # (the browser's language), the host page's rules did not get in.
    assert (await focused(page)).startswith("textarea")
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
    faq = await say(page, "How can I return an item?")
    await expect(faq.locator(".text")).to_have_text(RETURNS_ANSWER)
    source = faq.locator(".sources li").get_by_role("link")
    await expect(source).to_have_text("Häufige Frage: How can I return an item?")
    await expect(source).to_have_attribute("href", RETURNS_PAGE)
    await expect(source).to_have_attribute("target", "_blank")
    thinking = faq.locator("details.thinking")
    await thinking.locator("summary").click()
    await expect(thinking.locator("li").first).to_have_text(PHRASES["thinking_classify"]["en"])

    # A flow: a question, then a choice answered by clicking its button.
    started = await say(page, "Where is my order?")
    await expect(started.locator(".text")).to_have_text(
        "Let's find your order.\nWhat is your order number?"
    )
    asked = await say(page, "12345")
    await expect(asked.locator(".text")).to_have_text("How should we notify you?")
    choices = asked.get_by_role("group", name="Antwortmöglichkeiten").get_by_role("button")
    await expect(choices).to_have_text(["E-mail", "Phone"])
    assert await focused(page) == "button.choice E-mail"  # focus moved to the choice
    await screenshot(page, "widget-flow-choice")
    await choices.first.click()
    done = widget.locator("article.assistant").last
    await expect(done).not_to_have_attribute("aria-busy", "true")
    await expect(done.locator(".text")).to_have_text(
        re.compile(r"^Order 12345: we will write via email\.\nYou can reach Customer support")
    )
    await expect(choices.first).to_be_disabled()  # answered once

    # Escalation: the help desk's options, open or closed now, with their opening hours.
    person = await say(page, "I want to talk to a person")
    menu = person.get_by_role("region", name="Kontakt: Customer support")
    await expect(menu).to_be_visible()
    # The options are listed once, in the menu; the text keeps only the introduction.
    await expect(person.locator(".text")).not_to_contain_text("+41 44 000 00 00")
    await expect(person.locator(".text")).to_contain_text("Customer support")
    phone = menu.locator("li.option.phone")
    hours = OpeningHours.model_validate(shop_definition()["help_desks"][0]["options"][1]["hours"])
    status = "Jetzt geöffnet" if is_open(hours, utc_now()) else "Jetzt geschlossen"
    await expect(phone.locator(".status")).to_have_text(status)
    await expect(phone.get_by_role("link", name="Anrufen: +41 44 000 00 00")).to_have_attribute(
        "href", "tel:+41440000000"
    )
    await expect(phone.locator(".hours")).to_contain_text("Öffnungszeiten (Europe/Zurich)")
    await expect(phone.locator(".hours li")).to_have_text(["Mo 08:00–17:00"])
    # The chat option is a live chat's web page, opened in a new tab.
    chat = menu.locator("li.option.chat")
    await expect(chat.get_by_role("link", name="Live chat")).to_have_attribute("href", LIVE_CHAT)
    await expect(chat.locator(".hours")).to_have_text("Jederzeit erreichbar")
    await screenshot(page, "widget-escalation")
    assert await serious_accessibility_violations(page) == []

    # E-mail: the desk's address stays on the server; the visitor writes through a form and
    # sees delivered only once the SMTP server took the message.
    email = menu.locator("li.option.email")
    await email.get_by_role("button", name="E-Mail schreiben").click()
    assert (await focused(page)).startswith("input")
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
    assert (await focused(page)).startswith("button.bubble")
    bubble = widget.get_by_role("button", name="Chat öffnen")
    await expect(bubble).to_have_attribute("aria-expanded", "false")
    # The conversation belongs to this tab: a reload continues it (sessionStorage keeps the
    # token), another tab starts its own.
    widget = await open_widget(page, shop.url)  # the same tab, loaded again
    await expect(widget.locator("article.assistant .text").nth(1)).to_have_text(RETURNS_ANSWER)
    assert await _conversations(runtime, shop.assistant_id) == 1
    other = await context.new_page()
    other_widget = await open_widget(other, shop.url)
    await expect(other_widget.locator("article")).to_have_count(1)  # the greeting only
    await say(other, "How can I return an item?")
    assert await _conversations(runtime, shop.assistant_id) == 2


async def test_a_page_on_an_origin_not_allowed_gets_no_conversation(
    base_url: str, tenants: Tenants, runtime: Runtime, browser_context: BrowserContext
) -> None:
    # `data-language` overrides the browser's German.
    allowed = ["https://shop.example"]
    async with shop_page(base_url, tenants, allowed, language="fr") as shop:
        page = await browser_context.new_page()
        widget = await open_widget(page, shop.url, open_chat="Ouvrir le chat")
        await widget.get_by_label("Votre message").fill("How can I return an item?")
        await widget.get_by_role("button", name="Envoyer").click()
        await expect(widget.get_by_role("alert")).to_have_text(
            "Le chat n'est pas disponible pour le moment. Veuillez réessayer plus tard."
        )
        await expect(widget.locator("article.visitor")).to_have_count(1)
        assert await _conversations(runtime, shop.assistant_id) == 0
