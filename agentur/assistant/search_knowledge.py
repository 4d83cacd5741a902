"""Search knowledge: retrieve first, then answer from the passages with citations.

The visitor's question is searched before any model call and the passages go into the prompt,
numbered; the model answers from them and cites them by number ([1], [2][3]). Tools stay on
offer for follow-up reads (search with other words, read around a passage, live API data)
within the step limit, so a model that cannot call tools still answers grounded. `sources`
lists only the passages the answer cites.

The answer is held back until it is checked (`check_support`): every cited sentence must be
supported by its passages, and an answer citing nothing, or stating a number or a definite
yes/no no passage supports, is not sent. It is replaced by the extractive answer (the passages
that support any of its sentences, else those that cover the question, quoted with their
sources) — or, when nothing does, by an honest "I don't know" with a person offered. The
extractive answer also stands in when there is no chat model, when the model fails, or when its
output is unusable: empty, only citation markers, the prompt's form of a cited sentence copied
("<statement from passage 1> [1]", seen from a 1.5B model in German and Italian), or a tool call
written as text (see `CallTextGuard`). With nothing retrieved and no API the model is not
asked at all: "nothing found" and a person offered, never a guess.
"""

from __future__ import annotations

import json
import logging
from collections.abc import AsyncIterator
from dataclasses import dataclass, field
from typing import Any

from agentur.ai.messages import (
    AiRequest,
    AiResponse,
    CallOptions,
    Message,
    StreamDone,
    TextDelta,
    ToolCall,
)
from agentur.ai.operation_types import OperationType
from agentur.ai.providers.base import ProviderError
from agentur.ai.service import AiService
from agentur.ai.stream_error import StreamError
from agentur.ai.text_tool_calls import CallTextGuard, find_text_tool_calls
from agentur.assistant.assistant_api import AssistantApi
from agentur.assistant.assistant_tools import AssistantContext, definition, offered_tools
from agentur.assistant.check_support import check_answer, covers
from agentur.assistant.cite_passages import cited_sources, has_words
from agentur.assistant.context_room import ContextRoom
from agentur.assistant.events import TurnEvent, action, chunk, sources
from agentur.assistant.extractive_answer import quote_passages, where
from agentur.assistant.knowledge_port import KnowledgeSearch, Passage
from agentur.assistant.phrases import phrase
from agentur.assistant.simplified_thinking import simplified
from agentur.context import RequestContext
from agentur.errors import AgenturError
from agentur.tool_loop.event_stream import Sink, streamed
from agentur.tool_loop.events import EventType
from agentur.tool_loop.loop import LoopDriver, ModelTurn, run_loop
from agentur.tool_loop.prepare_step import NOTHING, StepOffer
from agentur.tool_loop.run_tool import ToolOutcome
from agentur.tool_loop.stop_conditions import step_count_is
from agentur.tools.registry import ToolRegistry

logger = logging.getLogger(__name__)
# The form of a cited sentence, as the prompt shows it: a placeholder, so that nothing a model
# copies from it passes for a fact; a reply that holds it copied the form, not an answer.
FORM_PLACEHOLDER = "<statement from passage"
SYSTEM = """{instructions}

Answer the website visitor's question from the numbered passages of the assistant's \
documents, in language "{language}", in one to three full sentences. State only what the \
passages say, and end each sentence with the number of the passage it comes from, in the \
form "<statement from passage 2> [2]." If the passages do not answer the question, say so \
in one sentence; never guess.{hints}"""
TOOLS_HINT = (
    "\nFor more, call search_knowledge (other words) or read_source_window (more text around a "
    "passage); new passages continue the numbering."
)
API_HINT = "\nYou may use inspect_api and call_api for live data."


@dataclass
class KnowledgeTurn:
    """Everything one knowledge answer needs; `ai` None means no chat model at all."""

    ai: AiService | None
    context: RequestContext
    tool_context: AssistantContext
    instructions: str
    message: str
    language: str
    knowledge: KnowledgeSearch
    api: AssistantApi | None
    max_steps: int
    extractive_count: int
    prompt_passages: int = 5
    # Output tokens of each model call: a small model can otherwise run on to its server's
    # limit (thousands of tokens, minutes on a CPU) while the visitor waits.
    max_output_tokens: int = 1024
    # Rewrite tool progress for visitors through the gateway (else templates).
    rewrite_thinking: bool = False


@dataclass
class KnowledgeResult:
    text: str = ""
    citations: list[dict[str, Any]] = field(default_factory=list)
    mode: str = "generated"  # "extractive" or "dont_know" when the answer was replaced
    steps: int = 0
    # Why the model's answer was replaced, and the passages it saw that support any of its
    # sentences (the extractive answer quotes them first).
    rejected: str = ""
    supporting: list[Passage] = field(default_factory=list)


async def search_knowledge(
    turn: KnowledgeTurn, result: KnowledgeResult
) -> AsyncIterator[TurnEvent]:
    yield await simplified(
        "search_knowledge", turn.language, tool="search_knowledge", status="started"
    )
    passages = await turn.knowledge.search(turn.message, turn.prompt_passages)
    if turn.ai is not None and (passages or turn.api is not None):
        try:
            async for event in _generate(turn, turn.ai, passages, result):
                yield event
        except (AgenturError, ProviderError) as error:
            logger.info("knowledge answer unavailable, answering extractively: %s", error)
            result.mode = "extractive"
        if result.mode == "generated":
            yield chunk(result.text)
            if result.citations:
                yield sources(result.citations)
            return
        logger.info("the model's knowledge answer was replaced: %s", result.rejected or "unusable")
    chosen = passages
    if result.rejected:  # a grounding failure: quote only what bears on the question
        covering = [p for p in passages if covers(turn.message, p.text)]
        chosen = list(dict.fromkeys([*result.supporting, *covering]))
    if result.rejected and not chosen:
        result.mode = "dont_know"
        text = phrase("dont_know", turn.language)
        events = [chunk(text), action("offer_escalation")]
        result.text, result.citations = text, []
    else:
        result.mode = "extractive"
        quoted = chosen[: turn.extractive_count]
        events, result.text, result.citations = quote_passages(quoted, turn.language)
    for event in events:
        yield event


def passages_prompt(passages: list[Passage], message: str) -> str:
    if not passages:
        return f"No passage matched the question.\n\nQuestion: {message}"
    numbered = [f"[{n}] {where(p)}\n{p.text.strip()}" for n, p in enumerate(passages, start=1)]
    return "Passages:\n\n" + "\n\n".join(numbered) + f"\n\nQuestion: {message}"


async def _progress(turn: KnowledgeTurn, call: ToolCall, status: str, **extra: object) -> TurnEvent:
    if turn.rewrite_thinking and status == "started":
        raw = f"{call.name} {json.dumps(call.arguments, ensure_ascii=False)[:300]}"
        return await simplified(
            call.name,
            turn.language,
            ai=turn.ai,
            context=turn.context,
            raw=raw,
            tool=call.name,
            status=status,
            **extra,
        )
    return await simplified(call.name, turn.language, tool=call.name, status=status, **extra)


def _recovers_text_calls(ai: AiService, model_id: str) -> bool:
    return any(spec.id == model_id and spec.recover_text_tool_calls for spec in ai.models())


async def _generate(
    turn: KnowledgeTurn, ai: AiService, passages: list[Passage], result: KnowledgeResult
) -> AsyncIterator[TurnEvent]:
    """Runs the loop (yielding its progress) and leaves the checked answer in `result`, or
    `result.mode` "extractive" with the reason in `result.rejected`: nothing is sent here."""
    tools = offered_tools(with_api=turn.api is not None)
    known = list(passages)  # numbered as the model sees them; tools append to it
    deps = turn.tool_context.deps
    deps.knowledge, deps.api, deps.passages = turn.knowledge, turn.api, known
    hints = TOOLS_HINT + (API_HINT if turn.api else "")
    system = SYSTEM.format(instructions=turn.instructions, language=turn.language, hints=hints)
    messages = [Message.system(system), Message.user(passages_prompt(passages, turn.message))]
    driver = KnowledgeDriver(
        context=turn.tool_context,
        max_parallel=1,  # one call after the other, each with its progress
        ai=ai,
        turn=turn,
        tools=tools,
        offer=StepOffer.of(tools.all(), definition),
        messages=messages,
        result=result,
        room=ContextRoom(ai, turn.max_output_tokens),
    )

    async def work(sink: Sink) -> None:
        driver.emit = sink
        await run_loop(driver, [step_count_is(turn.max_steps + 1)])

    async for item in streamed(work):
        call = ToolCall(item.data["id"], item.data["name"], item.data.get("arguments") or {})
        if item.type is EventType.tool_call:
            yield await _progress(turn, call, "started")
        elif item.type is EventType.tool_result:
            status = "failed" if item.data["is_error"] else "finished"
            yield await _progress(
                turn, call, status, duration_ms=round(item.data["duration_ms"], 1)
            )
    final, hidden = driver.final, driver.hidden
    if (
        hidden
        or FORM_PLACEHOLDER in final
        or not has_words(final)
        or find_text_tool_calls(final, tools.names()).looks_like_call
    ):
        result.mode = "extractive"
        return
    verdict = check_answer(final, [p.text for p in known], driver.live)
    result.supporting = [known[n - 1] for n in verdict.supporting]
    if not verdict.grounded:
        result.mode, result.rejected = "extractive", verdict.reason
        return
    result.text = final.strip()
    result.citations = cited_sources(result.text, known)


@dataclass(kw_only=True)
class KnowledgeDriver(LoopDriver):
    """The knowledge answer's configuration of the tool loop: the assistant's tools for
    `max_steps` steps, then one step without tools, so the model must answer with what it has.
    The answer is collected, not streamed: it is sent only once it is checked."""

    ai: AiService
    turn: KnowledgeTurn
    tools: ToolRegistry
    offer: StepOffer
    messages: list[Message]
    result: KnowledgeResult
    room: ContextRoom
    final: str = ""
    hidden: str = ""
    live: list[str] = field(default_factory=list)  # what API calls returned

    async def prepare_step(self, step: int) -> StepOffer:
        return self.offer if step <= self.turn.max_steps else NOTHING

    async def model_turn(self, step: int, offer: StepOffer) -> ModelTurn:
        if self.room.full():
            # The server would refuse the prompt: no answer, so the extractive one goes out.
            logger.info("the next knowledge call would exceed the model's context; stopping")
            self.final = self.hidden = ""
            return ModelTurn("")
        guard = CallTextGuard()
        response: AiResponse | None = None
        shown: list[str] = []
        request = AiRequest(
            OperationType.agent,
            tuple(self.messages),
            tools=offer.definitions,
            options=CallOptions(max_output_tokens=self.turn.max_output_tokens),
        )
        async for event in _visible(self.ai, request, self.turn.context, guard):
            if isinstance(event, AiResponse):
                response = event
            else:
                shown.append(event.data["text"])
        if response is None:
            raise AgenturError("the model stream ended without a response")
        self.room.count(response)
        self.result.steps = step
        tools = self.tools if offer.definitions else None
        calls, text = _calls(self.ai, response, tools, step - 1)
        hidden = "" if calls else guard.held
        if hidden and not find_text_tool_calls(hidden, self.tools.names()).looks_like_call:
            shown.append(hidden)  # a code fence or JSON that is not a call: part of the answer
            hidden = ""
        self.final, self.hidden = "".join(shown), hidden
        return ModelTurn(text, calls)

    async def answer(self, step: int, turn: ModelTurn) -> str:
        return self.final

    async def before_tools(self, step: int, turn: ModelTurn) -> None:
        self.messages.append(Message.assistant(turn.text, turn.calls))

    async def after_tools(self, step: int, turn: ModelTurn, outcomes: list[ToolOutcome]) -> None:
        for outcome in outcomes:
            call = outcome.call
            self.messages.append(
                Message.tool_result(call, outcome.content, is_error=outcome.is_error)
            )
            self.room.append(outcome.content)
            if call.name == "call_api" and not outcome.is_error:
                self.live.append(outcome.content)


def _calls(
    ai: AiService, response: AiResponse, tools: ToolRegistry | None, step: int
) -> tuple[tuple[ToolCall, ...], str]:
    """The round's tool calls (native, or recovered from the text where the model allows it)
    and the assistant text that goes with them. No tools offered: no calls."""
    if tools is None:
        return (), response.text
    if response.tool_calls:
        return response.tool_calls, response.text
    if not _recovers_text_calls(ai, response.model):
        return (), response.text
    found = find_text_tool_calls(response.text, tools.names(), id_prefix=f"text_s{step}")
    return found.calls, found.remaining


async def _visible(
    ai: AiService, request: AiRequest, context: RequestContext, guard: CallTextGuard
) -> AsyncIterator[TurnEvent | AiResponse]:
    """Chunks the visitor may see as they stream (a written tool call is held back), then
    the response."""
    async for event in ai.stream(request, context):
        if isinstance(event, TextDelta) and event.text:
            if visible := guard.feed(event.text):
                yield chunk(visible)
        elif isinstance(event, StreamDone):
            yield event.response
        elif isinstance(event, StreamError):
            raise ProviderError(
                event.message, provider=event.provider, status_code=event.status_code
            )
