"""Agent answers are Markdown, rendered while they stream, in Chromium under the app's own
Content-Security-Policy (Trusted Types without a policy): bold text, a table that never shows a
half-written row, a link that opens safely, and XSS payloads inside the Markdown that stay
text. The history shows the same rendering."""

from __future__ import annotations

import asyncio
import time
from collections.abc import AsyncIterator

from playwright.async_api import BrowserContext, Locator, expect

from agentur.ai.messages import AiRequest, StreamDone, StreamEvent, TextDelta
from agentur.ai.model_spec import ModelSpec
from agentur.ai.providers.scripted import ScriptedProvider, ScriptedTurn
from agentur.ai.service import AiService
from agentur.ai.settings import AiSettings
from agentur.runtime import Runtime
from tests.agent.support import chat_model
from tests.conftest import Tenants
from tests.web.browser import screenshot, serious_accessibility_violations
from tests.web.workspace_app import open_signed_in

PAYLOADS = (
    '<img src=x onerror="window.__xss = 1"> <script>window.__xss = 2</script> '
    "[Gutschein](javascript:window.__xss=3) [Bild](data:text/html,<script>parent.__xss=4</script>)"
)
PIECES = [
    "Die **Heckenpflege** kostet weniger als erwartet.\n\n",
    # the table's header, one row and half of the next
    "| Leistung | Preis |\n| --- | ---: |\n| Hecke | 480 |\n| Rasen",
    f" | 60 |\n\nDetails in der [Offerte](https://example.ch/offerte).\n\n{PAYLOADS}\n",
]


class PacedProvider(ScriptedProvider):
    """Streams PIECES, each only once the test lets it go (`release()`), so the test sees the
    page between them."""

    def __init__(self) -> None:
        super().__init__([ScriptedTurn(text="".join(PIECES))], model_specs=[chat_model()])
        self.gates = [asyncio.Event() for _ in PIECES]

    def release(self, index: int) -> None:
        self.gates[index].set()

    def release_all(self) -> None:
        """A failed test must not leave the run (and with it the server) waiting."""
        for gate in self.gates:
            gate.set()

    async def stream(self, model: ModelSpec, request: AiRequest) -> AsyncIterator[StreamEvent]:
        started = time.perf_counter()
        turn = self._next_turn(request)
        for piece, gate in zip(PIECES, self.gates, strict=True):
            await gate.wait()
            yield TextDelta(piece)
        yield StreamDone(self._response(model, request, turn, started))


async def test_markdown_renders_while_it_streams_and_payloads_stay_inert(
    browser_context: BrowserContext, base_url: str, runtime: Runtime, tenants: Tenants
) -> None:
    member = await tenants.member()
    provider = PacedProvider()
    runtime.ai = AiService([provider], settings=AiSettings())
    page = await open_signed_in(browser_context, base_url, member.key, "chat")
    refused: list[str] = []  # the browser's word when the page's policy blocks something
    page.on("console", lambda m: refused.append(m.text) if "Trusted" in m.text else None)
    try:
        await page.get_by_label("Ihre Nachricht").fill("Was kostet die Gartenpflege?")
        await page.get_by_role("button", name="Senden").click()
        answer = page.locator(".chat-answer").last

        provider.release(0)
        await expect(answer.locator("strong")).to_have_text("Heckenpflege")
        await expect(answer).not_to_contain_text("**")

        # Mid-table: the complete row is a table row; the half-written one is held back instead of
        # flashing as a paragraph of pipes.
        provider.release(1)
        await expect(answer.locator("table tbody tr")).to_have_count(1)
        await expect(answer.locator("table th")).to_have_text(["Leistung", "Preis"])
        await expect(answer).not_to_contain_text("Rasen")
        await expect(answer).not_to_contain_text("|")
        assert await answer.locator("p").count() == 1  # no paragraph of pipes either
        strong = await answer.locator("strong").element_handle()

        provider.release(2)
        await expect(page.get_by_role("status").filter(has_text="Fertig.")).to_be_visible()
        await expect(answer.locator("table tbody tr")).to_have_count(2)
        await expect(answer.locator("td.align-right")).to_have_text(["480", "60"])
        # The first paragraph stayed the same node while the rest streamed in (no re-build).
        assert await strong.evaluate("node => node.isConnected")
        link = answer.get_by_role("link", name="Offerte")
        await expect(link).to_have_attribute("href", "https://example.ch/offerte")
        await expect(link).to_have_attribute("target", "_blank")
        await expect(link).to_have_attribute("rel", "noopener noreferrer")
        await _payloads_are_text(answer)
        await screenshot(page, "agent-chat-markdown")
        assert await serious_accessibility_violations(page) == []

        # The conversation reopened from the server renders the same.
        await page.get_by_role("button", name="Neue Unterhaltung").click()
        await page.locator(".chat-conversation").filter(has_text="Was kostet").click()
        reopened = page.locator(".chat-answer").last
        await expect(reopened.locator("table tbody tr")).to_have_count(2)
        await expect(reopened.locator("strong")).to_have_text("Heckenpflege")
        await _payloads_are_text(reopened)
        assert await page.evaluate("() => window.__xss") is None
        assert refused == []
    finally:
        provider.release_all()


async def _payloads_are_text(answer: Locator) -> None:
    await expect(answer).to_contain_text('<img src=x onerror="window.__xss = 1">')
    await expect(answer).to_contain_text("<script>window.__xss = 2</script>")
    await expect(answer).to_contain_text("[Gutschein](javascript:window.__xss=3)")
    assert await answer.locator("img, script, iframe, [onerror]").count() == 0
    hrefs = await answer.locator("a").evaluate_all("links => links.map(a => a.href)")
    assert hrefs == ["https://example.ch/offerte"]
