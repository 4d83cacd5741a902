"""Search knowledge (S3): a bounded tool loop — the model searches, reads source windows,
repeats within the step limit — then the final answer with named citations. Without any chat
model it becomes the extractive answer (S8)."""

from __future__ import annotations

import json
import logging
from collections.abc import AsyncIterator
from dataclasses import dataclass, field
from typing import Any

from agentur.ai.messages import AiRequest, AiResponse, Message, StreamDone, TextDelta, ToolCall
from agentur.ai.operation_types import OperationType
from agentur.ai.providers.base import ProviderError
from agentur.ai.service import AiService
from agentur.assistant.assistant_api import AssistantApi
from agentur.assistant.assistant_tools import definitions, offered_tools, run_assistant_tool
from agentur.assistant.events import TurnEvent, chunk, sources
from agentur.assistant.extractive_answer import extractive_answer
from agentur.assistant.knowledge_port import KnowledgeSearch, Passage
from agentur.assistant.simplified_thinking import simplified
from agentur.context import RequestContext
from agentur.errors import AgenturError
from agentur.tools.tool import ToolContext

logger = logging.getLogger(__name__)
MAX_CITATIONS = 5
SYSTEM = """{instructions}

Answer the visitor's question from the assistant's documents. Use search_knowledge, and
read_source_window for more context; answer in language "{language}". Only state what the
documents say; if they do not answer it, say so.{api_hint}"""


@dataclass
class KnowledgeTurn:
    """Everything one knowledge answer needs; `ai` None means no chat model at all."""

    ai: AiService | None
    context: RequestContext
    tool_context: ToolContext
    instructions: str
    message: str
    language: str
    knowledge: KnowledgeSearch
    api: AssistantApi | None
    max_steps: int
    extractive_count: int
    # Rewrite tool progress for visitors through the gateway (else templates).
    rewrite_thinking: bool = False


@dataclass
class KnowledgeResult:
    text: str = ""
    citations: list[dict[str, Any]] = field(default_factory=list)
    mode: str = "generated"  # or "extractive"
    steps: int = 0


def cite(passages: list[Passage]) -> list[dict[str, Any]]:
    seen: dict[tuple[str, int], dict[str, Any]] = {}
    for passage in passages:
        seen.setdefault((passage.source_id, passage.offset), passage.citation())
    return [{"ref": n, **c} for n, c in enumerate(list(seen.values())[:MAX_CITATIONS], start=1)]


async def search_knowledge(
    turn: KnowledgeTurn, result: KnowledgeResult
) -> AsyncIterator[TurnEvent]:
    if turn.ai is not None:
        emitted = 0
        try:
            async for event in _loop(turn, turn.ai, result):
                emitted += event.type == "chunk"
                yield event
            return
        except (AgenturError, ProviderError) as error:
            if emitted:
                raise  # part of a generated answer went out; do not append a second one
            logger.info("knowledge loop unavailable, answering extractively: %s", error)
    yield await simplified(
        "search_knowledge", turn.language, tool="search_knowledge", status="started"
    )
    events, text, citations = await extractive_answer(
        turn.knowledge, turn.message, turn.language, turn.extractive_count
    )
    result.text, result.citations, result.mode = text, citations, "extractive"
    for event in events:
        yield event


async def _round(
    ai: AiService, request: AiRequest, context: RequestContext
) -> AsyncIterator[TurnEvent | AiResponse]:
    async for event in ai.stream(request, context):
        if isinstance(event, TextDelta) and event.text:
            yield chunk(event.text)
        elif isinstance(event, StreamDone):
            yield event.response


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


async def _loop(
    turn: KnowledgeTurn, ai: AiService, result: KnowledgeResult
) -> AsyncIterator[TurnEvent]:
    tools = offered_tools(with_api=turn.api is not None)
    turn.tool_context.extras.update(knowledge=turn.knowledge, api=turn.api, passages=[])
    hint = "\nYou may use inspect_api and call_api for live data." if turn.api else ""
    system = SYSTEM.format(instructions=turn.instructions, language=turn.language, api_hint=hint)
    messages = [Message.system(system), Message.user(turn.message)]
    texts: list[str] = []
    for step in range(turn.max_steps + 1):
        # The last round offers no tools: the model must answer with what it has.
        offered = definitions(tools) if step < turn.max_steps else ()
        request = AiRequest(OperationType.agent, tuple(messages), tools=offered)
        response: AiResponse | None = None
        async for item in _round(ai, request, turn.context):
            if isinstance(item, TurnEvent):
                texts.append(item.data["text"])
                yield item
            else:
                response = item
        if response is None:
            raise AgenturError("the model stream ended without a response")
        result.steps = step + 1
        if not response.tool_calls:
            break
        messages.append(Message.assistant(response.text, response.tool_calls))
        for call in response.tool_calls:
            yield await _progress(turn, call, "started")
            outcome = await run_assistant_tool(tools, call, turn.tool_context)
            content, is_error = outcome.content, outcome.is_error
            status = "failed" if is_error else "finished"
            yield await _progress(turn, call, status, duration_ms=round(outcome.duration_ms, 1))
            messages.append(Message.tool_result(call, content, is_error=is_error))
    result.text = "".join(texts)
    result.citations = cite(turn.tool_context.extras.get("passages", []))
    if result.citations:
        yield sources(result.citations)
