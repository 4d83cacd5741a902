"""What the widget offers and shows, on a host page of its own: only escalation channels that
work (no e-mail without SMTP, no chat that is only a queue name), FAQ answers in the visitor's
language or visibly in another one, and Markdown answers rendered and sanitized even on a page
that enforces Trusted Types itself."""

from __future__ import annotations

import pytest
from playwright.async_api import BrowserContext, expect

from tests.assistant.definitions import shop_definition
from tests.conftest import Tenants
from tests.web.browser import screenshot, serious_accessibility_violations
from tests.web.widget_page import open_widget, say, shop_page

# A host page as strict as the app's own: no string may reach an HTML sink.
TRUSTED_TYPES_ONLY = "require-trusted-types-for 'script'; trusted-types 'none'"
POLICY = "Trusted"  # TrustedHTML, TrustedTypePolicy …
RUECKGABE = (
    "Sie können jeden Artikel **innert 30 Tagen** zurücksenden. Alles Weitere auf der Seite "
    "[Rückgabe](https://shop.example/rueckgabe).\n\n"
    '<img src=x onerror="window.__xss = 1"> [Gutschein](javascript:window.__xss=2)'
)
SHIPPING = (
    "Delivery times:\n\n| Destination | Working days |\n| --- | ---: |\n"
    "| Switzerland | 2 |\n| Europe | 5 |"
)


def _multilingual_shop() -> dict[str, object]:
    definition = shop_definition()
    returns = definition["faqs"][0]
    returns["translations"] = {
        "de": {"question": "Wie kann ich einen Artikel zurückgeben?", "answer": RUECKGABE}
    }
    definition["faqs"].append(
        {
            "id": "shipping",
            "question": "How long does shipping take?",
            "variants": ["Wie lange dauert der Versand?"],
            "keywords": ["shipping", "versand"],
            "answer": SHIPPING,
        }
    )
    return definition


async def test_only_working_channels_are_offered(
    base_url: str,
    tenants: Tenants,
    browser_context: BrowserContext,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # The README's setting for e-mail, left out: no SMTP server.
    monkeypatch.delenv("AGENTUR_SMTP_HOST", raising=False)
    async with shop_page(base_url, tenants) as shop:
        page = await browser_context.new_page()
        widget = await open_widget(page, shop.url)
        person = await say(page, "I want to talk to a person")
        menu = person.get_by_role("region", name="Kontakt: Customer support")
        await expect(menu.locator("li.option")).to_have_count(1)
        await expect(menu.locator("li.option.phone")).to_be_visible()
        # no e-mail form that would fail, no "Live chat: queue-1" that leads nowhere
        await expect(widget.get_by_role("button", name="E-Mail schreiben")).to_have_count(0)
        await expect(person).not_to_contain_text("queue-1")
        await expect(person).not_to_contain_text("E-mail")
        await screenshot(page, "widget-channels-without-smtp")
        assert await serious_accessibility_violations(page) == []


async def test_faq_in_the_visitors_language_rendered_and_sanitized(
    base_url: str, tenants: Tenants, browser_context: BrowserContext
) -> None:
    definition = _multilingual_shop()
    async with shop_page(
        base_url, tenants, definition=definition, policy=TRUSTED_TYPES_ONLY
    ) as shop:
        page = await browser_context.new_page()
        violations: list[str] = []  # what the browser says when the page's policy refuses
        page.on("console", lambda m: violations.append(m.text) if POLICY in m.text else None)
        await open_widget(page, shop.url)

        # The FAQ's German text, as Markdown: bold, a safe link, the payloads as plain text.
        returns = await say(page, "Wie kann ich etwas zurücksenden?")
        text = returns.locator(".text")
        await expect(text.locator("strong")).to_have_text("innert 30 Tagen")
        link = text.get_by_role("link", name="Rückgabe")
        await expect(link).to_have_attribute("href", "https://shop.example/rueckgabe")
        await expect(link).to_have_attribute("target", "_blank")
        await expect(link).to_have_attribute("rel", "noopener noreferrer")
        await expect(text).to_contain_text('<img src=x onerror="window.__xss = 1">')
        await expect(text).to_contain_text("[Gutschein](javascript:window.__xss=2)")
        assert await text.locator("img, script, [onerror]").count() == 0
        assert await text.locator("a[href^='javascript']").count() == 0
        source = returns.locator(".sources li")
        await expect(source).to_have_text("Häufige Frage: Wie kann ich einen Artikel zurückgeben?")
        await expect(returns).to_have_attribute("lang", "de")

        # A FAQ with English text only: said so in German, the text marked as English.
        shipping = await say(page, "Wie lange dauert der Versand?")
        blocks = shipping.locator(".text > *")
        await expect(blocks.first).to_have_text("Diese Antwort gibt es nur auf Englisch:")
        await expect(blocks.first).not_to_have_attribute("lang", "en")
        await expect(blocks.nth(1)).to_have_attribute("lang", "en")
        table = shipping.locator(".text table")
        await expect(table.locator("tbody tr")).to_have_count(2)
        await expect(table.locator("td.align-right").first).to_have_text("2")
        await screenshot(page, "widget-faq-languages")
        assert await serious_accessibility_violations(page) == []

        # Reloaded, the stored answers render the same way.
        await open_widget(page, shop.url)
        restored = page.locator("agentur-widget article.assistant").nth(1)
        await expect(restored.locator(".text strong")).to_have_text("innert 30 Tagen")
        assert await page.evaluate("() => window.__xss") is None
        assert violations == []
