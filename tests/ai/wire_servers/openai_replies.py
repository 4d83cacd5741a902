"""Replies in the OpenAI chat-completions wire format (also Mistral, Perplexity, Ollama…)."""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

from agentur.ai.messages import ToolCall
from tests.ai.wire_servers.server import Reply


def openai_usage(input_tokens: int, output_tokens: int, cached_tokens: int = 0) -> dict[str, Any]:
    return {
        "prompt_tokens": input_tokens,
        "completion_tokens": output_tokens,
        "total_tokens": input_tokens + output_tokens,
        "prompt_tokens_details": {"cached_tokens": cached_tokens},
    }


def openai_message(
    text: str | None = None,
    tool_calls: Sequence[ToolCall] = (),
    *,
    input_tokens: int = 10,
    output_tokens: int = 5,
    cached_tokens: int = 0,
    finish_reason: str | None = None,
    model: str = "wire-model",
    extra: dict[str, Any] | None = None,
) -> Reply:
    """A whole chat completion; `extra` adds top-level fields (e.g. Perplexity `citations`)."""
    message: dict[str, Any] = {"role": "assistant", "content": text}
    if tool_calls:
        message["tool_calls"] = [
            {
                "id": call.id,
                "type": "function",
                "function": {"name": call.name, "arguments": json.dumps(call.arguments)},
            }
            for call in tool_calls
        ]
    reason = finish_reason or ("tool_calls" if tool_calls else "stop")
    return Reply.json(
        {
            "id": "chatcmpl-wire",
            "object": "chat.completion",
            "created": 1_700_000_000,
            "model": model,
            "choices": [{"index": 0, "message": message, "finish_reason": reason}],
            "usage": openai_usage(input_tokens, output_tokens, cached_tokens),
            **(extra or {}),
        }
    )


def openai_text(text: str, **kwargs: Any) -> Reply:
    return openai_message(text, **kwargs)


def openai_tool_call(
    name: str, arguments: dict[str, Any], *, call_id: str = "call_1", **kwargs: Any
) -> Reply:
    return openai_message(None, (ToolCall(call_id, name, arguments),), **kwargs)


def openai_tool_calls(*calls: ToolCall, text: str | None = None, **kwargs: Any) -> Reply:
    return openai_message(text, calls, **kwargs)


def openai_stream(
    *text_chunks: str,
    tool_calls: Sequence[ToolCall] = (),
    input_tokens: int = 10,
    output_tokens: int = 5,
    cached_tokens: int = 0,
    finish_reason: str | None = None,
    usage_chunk: bool = True,
    done: bool = True,
    arguments_chunk_size: int = 7,
    model: str = "wire-model",
) -> Reply:
    """An SSE stream: text deltas, tool-call deltas (arguments split into fragments), a
    finish chunk, then usage — as its own chunk with empty `choices` (OpenAI with
    `stream_options.include_usage`) or, with `usage_chunk=False`, inside the finish chunk
    (Mistral) — and `data: [DONE]`."""

    def chunk(delta: dict[str, Any], reason: str | None = None) -> dict[str, Any]:
        return {
            "id": "chatcmpl-wire",
            "object": "chat.completion.chunk",
            "model": model,
            "choices": [{"index": 0, "delta": delta, "finish_reason": reason}],
        }

    events: list[Any] = [chunk({"role": "assistant", "content": ""})]
    events += [chunk({"content": text}) for text in text_chunks]
    for index, call in enumerate(tool_calls):
        arguments = json.dumps(call.arguments)
        pieces = [
            arguments[i : i + arguments_chunk_size]
            for i in range(0, len(arguments), arguments_chunk_size)
        ] or [""]
        first = {"index": index, "id": call.id, "type": "function"}
        events.append(
            chunk({"tool_calls": [{**first, "function": {"name": call.name, "arguments": ""}}]})
        )
        events += [
            chunk({"tool_calls": [{"index": index, "function": {"arguments": piece}}]})
            for piece in pieces
        ]
    usage = openai_usage(input_tokens, output_tokens, cached_tokens)
    finish = chunk({}, finish_reason or ("tool_calls" if tool_calls else "stop"))
    if usage_chunk:
        events.append(finish)
        events.append({"id": "chatcmpl-wire", "model": model, "choices": [], "usage": usage})
    else:
        events.append({**finish, "usage": usage})
    if done:
        events.append("[DONE]")
    return Reply.sse(events)


def openai_error(
    status: int,
    message: str,
    *,
    error_type: str = "invalid_request_error",
    retry_after: str | float | None = None,
) -> Reply:
    return Reply.error(
        {"error": {"message": message, "type": error_type, "code": None}},
        status=status,
        retry_after=retry_after,
    )


def openai_embeddings(vectors: Sequence[Sequence[float]], *, input_tokens: int = 8) -> Reply:
    return Reply.json(
        {
            "object": "list",
            "model": "wire-embedding",
            "data": [
                {"object": "embedding", "index": index, "embedding": list(vector)}
                for index, vector in enumerate(vectors)
            ],
            "usage": {"prompt_tokens": input_tokens, "total_tokens": input_tokens},
        }
    )
