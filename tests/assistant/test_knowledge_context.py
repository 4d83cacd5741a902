"""A knowledge answer against a llama.cpp-like server with a small context: the loop never
sends a prompt the server would refuse (HTTP 400), even when the model's own output — which
each step puts back into the prompt — has many more tokens than its characters suggest."""

from __future__ import annotations

import json

from agentur.ai.messages import ToolCall
from agentur.ai.provider_factory import build_providers
from agentur.ai.providers.openai_compatible_settings import OpenAICompatibleServerSettings
from agentur.ai.service import AiService
from agentur.ai.settings import AiSettings
from agentur.assistant.assistant_tools import AssistantContext
from agentur.assistant.search_knowledge import KnowledgeResult, KnowledgeTurn, search_knowledge
from tests.ai.wire_servers import WireServer, openai_error, openai_stream
from tests.ai.wire_servers.server import ReceivedRequest, Reply
from tests.assistant.turns import CONTEXT, MemoryKnowledge

CONTEXT_TOKENS = 3_000
OUTPUT_TOKENS = 256
# Each turn the model thinks aloud in a script whose characters are a token each (the
# gateway's estimate counts four characters per token), then searches again.
RAMBLE = "思" * 600


def tokens(body: dict) -> int:
    """The server's count: one token per character of everything it must read."""
    parts = [json.dumps(body.get("tools") or [], ensure_ascii=False)]
    for message in body["messages"]:
        parts.append(message.get("content") or "")
        parts += [call["function"]["arguments"] for call in message.get("tool_calls") or []]
    return sum(len(part) for part in parts)


def llama_like(request: ReceivedRequest) -> Reply:
    prompt = tokens(request.json)
    if prompt > CONTEXT_TOKENS:  # llama.cpp's own words and status
        return openai_error(
            400,
            f"request ({prompt} tokens) exceeds the available context size "
            f"({CONTEXT_TOKENS} tokens), try increasing it",
            error_type="exceed_context_size_error",
        )
    call = ToolCall(f"call_{len(request.json['messages'])}", "search_knowledge", {"query": "x"})
    calls = (call,) if request.json.get("tools") else ()
    return openai_stream(
        RAMBLE, tool_calls=calls, input_tokens=prompt, output_tokens=len(RAMBLE) + 10
    )


async def test_the_loop_stops_before_the_servers_context_is_full_and_quotes_the_document():
    with WireServer("llama", "/v1") as server:
        server.default_reply = llama_like
        local = OpenAICompatibleServerSettings(
            openai_compatible_base_url=server.base_url,
            openai_compatible_models="qwen2.5-0.5b",
            openai_compatible_context_window=CONTEXT_TOKENS,
            openai_compatible_max_output_tokens=OUTPUT_TOKENS,
        )
        settings = AiSettings(max_retries=0)
        ai = AiService(build_providers(settings, server=local), settings=settings)
        knowledge = MemoryKnowledge()
        turn = KnowledgeTurn(
            ai=ai,
            context=CONTEXT,
            tool_context=AssistantContext(request=CONTEXT, runtime=None),  # type: ignore[arg-type]
            instructions="You help visitors of the shop.",
            message="How long does a parcel take?",
            language="en",
            knowledge=knowledge,
            api=None,
            max_steps=4,
            extractive_count=2,
            max_output_tokens=1_024,
        )
        result = KnowledgeResult()
        try:
            events = [event async for event in search_knowledge(turn, result)]
        finally:
            await ai.aclose()
    statuses = [tokens(r.json) <= CONTEXT_TOKENS for r in server.received]
    # The model was asked while its prompt fitted (it kept searching), and never beyond.
    assert len(statuses) >= 2 and all(statuses), [tokens(r.json) for r in server.received]
    # The model never gave an answer, so the visitor gets the document quoted, with its source.
    assert result.mode == "extractive"
    text = "".join(e.data["text"] for e in events if e.type == "chunk")
    assert "two working days" in text and RAMBLE not in text
