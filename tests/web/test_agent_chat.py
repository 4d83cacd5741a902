"""The Agent chat screen in Chromium: a scripted run with a tool call streams into the page
(the tool in the thinking panel, the answer before the run ends, then rounds/cost/tokens);
the stop button cancels a run; the history of the workflow comes back from the server."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator

from playwright.async_api import BrowserContext, expect

from agentur.ai.messages import AiRequest, StreamDone, StreamEvent
from agentur.ai.model_spec import ModelSpec
from agentur.ai.providers.scripted import ScriptedProvider, ScriptedTurn
from agentur.ai.service import AiService
from agentur.ai.settings import AiSettings
from agentur.runtime import Runtime
from tests.agent.support import chat_model
from tests.conftest import Tenants
from tests.web.browser import screenshot, serious_accessibility_violations
from tests.web.workspace_app import api_get, open_signed_in

ANSWER = "Im Arbeitsbereich liegen noch keine Dateien."


class HeldProvider(ScriptedProvider):
    """Streams a turn's text, then holds the turn open until `hold` is set: the page must
    show the text while the run is still going (streamed, not delivered at the end)."""

    def __init__(self, script: list[ScriptedTurn]) -> None:
        super().__init__(script, model_specs=[chat_model()])
        self.hold: asyncio.Event | None = None
        self.holding = asyncio.Event()

    async def stream(self, model: ModelSpec, request: AiRequest) -> AsyncIterator[StreamEvent]:
        async for event in super().stream(model, request):
            if isinstance(event, StreamDone) and event.response.text and self.hold is not None:
                self.holding.set()
                await self.hold.wait()
            yield event


async def test_streamed_run_with_tool_call_stop_and_history(
    browser_context: BrowserContext, base_url: str, runtime: Runtime, tenants: Tenants
) -> None:
    member = await tenants.member()
    provider = HeldProvider(
        [
            ScriptedTurn.call("list_files", "call_files"),
            ScriptedTurn(text=ANSWER),
            ScriptedTurn(text="Ich denke noch nach"),
        ]
    )
    runtime.ai = AiService([provider], settings=AiSettings())
    page = await open_signed_in(browser_context, base_url, member.key, "chat")
    await expect(page.get_by_role("heading", level=1)).to_have_text("Agent-Chat")
    assert await serious_accessibility_violations(page) == []

    provider.hold = asyncio.Event()
    await page.get_by_label("Ihre Nachricht").fill("Welche Dateien habe ich?")
    await page.get_by_role("button", name="Senden").click()
    answer = page.locator(".chat-answer").last
    await expect(answer).to_have_text(ANSWER)
    # Still running: the answer arrived before the run's end (stop is live, no stats yet).
    await asyncio.wait_for(provider.holding.wait(), timeout=5)
    await expect(page.get_by_role("button", name="Stoppen")).to_be_enabled()
    await expect(page.locator(".chat-stats").last).to_be_empty()
    await expect(page.locator(".chat-status")).to_have_text("Der Agent arbeitet… (Runde 2)")
    thinking = page.locator(".chat-thinking").last
    await expect(thinking.locator("summary").first).to_have_text("Denkprozess · Werkzeugaufrufe: 1")
    await thinking.locator("summary").first.click()
    tool = thinking.locator(".chat-tool[data-tool='list_files']")
    await expect(tool).to_contain_text("fertig in")
    await tool.locator("summary").click()
    await expect(tool.locator(".chat-tool-result")).to_contain_text('"files"')
    provider.hold.set()
    await expect(page.locator(".chat-stats").last).to_contain_text("Runden: 2")
    await expect(page.locator(".chat-stats").last).to_contain_text("CHF")
    await expect(page.get_by_role("status").filter(has_text="Fertig.")).to_be_visible()
    # The browser's zone reached the model (the clock line rides in the last message).
    assert "Europe/Zurich" in provider.received[0].messages[-1].content
    await screenshot(page, "agent-chat")
    assert await serious_accessibility_violations(page) == []

    # Stop: the third turn streams its text and then never ends until cancelled.
    provider.hold, provider.holding = asyncio.Event(), asyncio.Event()
    await page.get_by_label("Ihre Nachricht").fill("Und jetzt?")
    await page.get_by_label("Ihre Nachricht").press("Enter")  # Enter sends
    await expect(page.locator(".chat-answer").last).to_have_text("Ich denke noch nach")
    await page.get_by_role("button", name="Stoppen").click()
    await expect(page.get_by_role("status").filter(has_text="Gestoppt.")).to_be_visible()
    await expect(page.get_by_role("button", name="Senden")).to_be_enabled()
    # The server cancelled the run (the provider's hold was never released).
    workflows = await api_get(base_url, member, "/v1/workflows")
    messages = await api_get(base_url, member, f"/v1/workflows/{workflows[0]['id']}/messages")
    answers = [m["data"]["status"] for m in messages["items"] if m["role"] == "assistant"]
    assert answers == ["completed", "cancelled"]

    # History: the conversation is listed; opening it rebuilds both turns from the server,
    # and the first reply's thinking panel loads its run's trace.
    await page.get_by_role("button", name="Neue Unterhaltung").click()
    await expect(page.locator(".chat-turn")).to_have_count(0)
    await page.locator(".chat-conversation").filter(has_text="Welche Dateien habe ich?").click()
    await expect(page.locator(".chat-turn")).to_have_count(2)
    first = page.locator(".chat-turn").first
    await expect(first.locator(".chat-answer")).to_have_text(ANSWER)
    await first.locator(".chat-thinking > summary").click()
    await expect(first.locator(".chat-tool[data-tool='list_files']")).to_have_count(1)
    await expect(first.locator(".chat-stats")).to_contain_text("Runden: 2")
    assert await serious_accessibility_violations(page) == []

    # The screen speaks the other languages too (the shell's language choice re-renders it).
    await page.get_by_label("Sprache").select_option("it")
    await expect(page.get_by_role("heading", level=1)).to_have_text("Chat con l’agente")
    await expect(page.get_by_role("button", name="Invia")).to_be_visible()
