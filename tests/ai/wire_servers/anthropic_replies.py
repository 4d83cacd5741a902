"""Replies in the Anthropic Messages wire format."""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

from agentur.ai.messages import ToolCall
from tests.ai.wire_servers.server import Reply


def anthropic_message(
    text: str = "",
    tool_calls: Sequence[ToolCall] = (),
    *,
    input_tokens: int = 10,
    output_tokens: int = 5,
    cache_read_tokens: int = 0,
    cache_creation_tokens: int = 0,
    stop_reason: str | None = None,
    model: str = "wire-claude",
) -> Reply:
    content: list[dict[str, Any]] = [{"type": "text", "text": text}] if text else []
    content += [
        {"type": "tool_use", "id": call.id, "name": call.name, "input": call.arguments}
        for call in tool_calls
    ]
    return Reply.json(
        {
            "id": "msg_wire",
            "type": "message",
            "role": "assistant",
            "model": model,
            "content": content,
            "stop_reason": stop_reason or ("tool_use" if tool_calls else "end_turn"),
            "stop_sequence": None,
            "usage": {
                "input_tokens": input_tokens,
                "output_tokens": output_tokens,
                "cache_read_input_tokens": cache_read_tokens,
                "cache_creation_input_tokens": cache_creation_tokens,
            },
        }
    )


def anthropic_text(text: str, **kwargs: Any) -> Reply:
    return anthropic_message(text, **kwargs)


def anthropic_tool_use(
    name: str, arguments: dict[str, Any], *, tool_id: str = "toolu_1", text: str = "", **kwargs: Any
) -> Reply:
    return anthropic_message(text, (ToolCall(tool_id, name, arguments),), **kwargs)


def anthropic_tool_uses(*calls: ToolCall, text: str = "", **kwargs: Any) -> Reply:
    return anthropic_message(text, calls, **kwargs)


def anthropic_stream(
    *text_chunks: str,
    tool_calls: Sequence[ToolCall] = (),
    input_tokens: int = 10,
    output_tokens: int = 5,
    cache_read_tokens: int = 0,
    cache_creation_tokens: int = 0,
    stop_reason: str | None = None,
    stop_event: bool = True,
    arguments_chunk_size: int = 7,
    model: str = "wire-claude",
) -> Reply:
    """message_start, a text block with deltas, tool_use blocks with input_json_delta
    fragments, message_delta (stop reason, output tokens), message_stop — and a ping."""
    events: list[Any] = [
        (
            "message_start",
            {
                "type": "message_start",
                "message": {
                    "id": "msg_wire",
                    "type": "message",
                    "role": "assistant",
                    "model": model,
                    "content": [],
                    "stop_reason": None,
                    "usage": {
                        "input_tokens": input_tokens,
                        "output_tokens": 1,
                        "cache_read_input_tokens": cache_read_tokens,
                        "cache_creation_input_tokens": cache_creation_tokens,
                    },
                },
            },
        ),
        ("ping", {"type": "ping"}),
    ]
    block = 0
    if text_chunks:
        events.append(
            (
                "content_block_start",
                {
                    "type": "content_block_start",
                    "index": block,
                    "content_block": {"type": "text", "text": ""},
                },
            )
        )
        events += [
            (
                "content_block_delta",
                {
                    "type": "content_block_delta",
                    "index": block,
                    "delta": {"type": "text_delta", "text": text},
                },
            )
            for text in text_chunks
        ]
        events.append(("content_block_stop", {"type": "content_block_stop", "index": block}))
        block += 1
    for call in tool_calls:
        start = {"type": "tool_use", "id": call.id, "name": call.name, "input": {}}
        events.append(
            (
                "content_block_start",
                {"type": "content_block_start", "index": block, "content_block": start},
            )
        )
        arguments = json.dumps(call.arguments)
        for i in range(0, len(arguments), arguments_chunk_size):
            piece = arguments[i : i + arguments_chunk_size]
            delta = {"type": "input_json_delta", "partial_json": piece}
            events.append(
                (
                    "content_block_delta",
                    {"type": "content_block_delta", "index": block, "delta": delta},
                )
            )
        events.append(("content_block_stop", {"type": "content_block_stop", "index": block}))
        block += 1
    events.append(
        (
            "message_delta",
            {
                "type": "message_delta",
                "delta": {
                    "stop_reason": stop_reason or ("tool_use" if tool_calls else "end_turn"),
                    "stop_sequence": None,
                },
                "usage": {"output_tokens": output_tokens},
            },
        )
    )
    if stop_event:
        events.append(("message_stop", {"type": "message_stop"}))
    return Reply.sse(events)


def anthropic_error(
    status: int,
    message: str,
    *,
    error_type: str = "invalid_request_error",
    retry_after: str | float | None = None,
) -> Reply:
    return Reply.error(
        {"type": "error", "error": {"type": error_type, "message": message}},
        status=status,
        retry_after=retry_after,
    )


def anthropic_stream_error(message: str, *, error_type: str = "overloaded_error") -> Reply:
    """A stream that starts fine, then reports an `error` event (as Anthropic does)."""
    start = anthropic_stream("partial", stop_event=False)
    assert start.events is not None
    error = json.dumps({"type": "error", "error": {"type": error_type, "message": message}})
    return Reply(
        status=200,
        headers=start.headers,
        events=start.events[:4] + (f"event: error\ndata: {error}\n\n".encode(),),
    )
