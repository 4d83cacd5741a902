"""Replies in the Google Gemini `generateContent` wire format."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from agentur.ai.messages import ToolCall
from tests.ai.wire_servers.server import Reply


def google_usage(
    input_tokens: int, output_tokens: int, cached_tokens: int = 0, thoughts_tokens: int = 0
) -> dict[str, Any]:
    usage = {
        "promptTokenCount": input_tokens,
        "candidatesTokenCount": output_tokens,
        "totalTokenCount": input_tokens + output_tokens + thoughts_tokens,
    }
    if cached_tokens:
        usage["cachedContentTokenCount"] = cached_tokens
    if thoughts_tokens:
        usage["thoughtsTokenCount"] = thoughts_tokens
    return usage


def _parts(text: str, calls: Sequence[ToolCall], signature: str | None) -> list[dict[str, Any]]:
    parts: list[dict[str, Any]] = [{"text": text}] if text else []
    for position, call in enumerate(calls):
        part: dict[str, Any] = {"functionCall": {"name": call.name, "args": call.arguments}}
        if signature and position == 0:
            part["thoughtSignature"] = signature
        parts.append(part)
    return parts


def google_message(
    text: str = "",
    function_calls: Sequence[ToolCall] = (),
    *,
    input_tokens: int = 10,
    output_tokens: int = 5,
    cached_tokens: int = 0,
    thoughts_tokens: int = 0,
    finish_reason: str = "STOP",
    thought_signature: str | None = None,
) -> Reply:
    """Gemini returns no call ids; the ToolCall ids given here are ignored."""
    return Reply.json(
        {
            "candidates": [
                {
                    "content": {
                        "role": "model",
                        "parts": _parts(text, function_calls, thought_signature),
                    },
                    "finishReason": finish_reason,
                    "index": 0,
                }
            ],
            "usageMetadata": google_usage(
                input_tokens, output_tokens, cached_tokens, thoughts_tokens
            ),
            "modelVersion": "wire-gemini",
        }
    )


def google_text(text: str, **kwargs: Any) -> Reply:
    return google_message(text, **kwargs)


def google_function_call(name: str, arguments: dict[str, Any], **kwargs: Any) -> Reply:
    return google_message("", (ToolCall("", name, arguments),), **kwargs)


def google_function_calls(*calls: ToolCall, text: str = "", **kwargs: Any) -> Reply:
    return google_message(text, calls, **kwargs)


def google_stream(
    *text_chunks: str,
    function_calls: Sequence[ToolCall] = (),
    input_tokens: int = 10,
    output_tokens: int = 5,
    cached_tokens: int = 0,
    finish_reason: str | None = "STOP",
) -> Reply:
    """`streamGenerateContent?alt=sse`: one chunk per text piece, function calls whole, the
    last chunk carries finishReason and usage. `finish_reason=None` ends without one."""

    def chunk(parts: list[dict[str, Any]], last: bool) -> dict[str, Any]:
        candidate: dict[str, Any] = {"content": {"role": "model", "parts": parts}, "index": 0}
        body: dict[str, Any] = {"candidates": [candidate], "modelVersion": "wire-gemini"}
        if last and finish_reason:
            candidate["finishReason"] = finish_reason
            body["usageMetadata"] = google_usage(input_tokens, output_tokens, cached_tokens)
        return body

    pieces: list[list[dict[str, Any]]] = [[{"text": text}] for text in text_chunks]
    if function_calls:
        pieces.append(_parts("", function_calls, None))
    return Reply.sse(
        chunk(parts, position == len(pieces) - 1) for position, parts in enumerate(pieces)
    )


def google_error(
    status: int,
    message: str,
    *,
    status_name: str = "INVALID_ARGUMENT",
    retry_delay: str | None = None,
    retry_after: str | float | None = None,
) -> Reply:
    """`retry_delay` (e.g. "7s") goes into a google.rpc.RetryInfo detail, as Gemini sends."""
    error: dict[str, Any] = {"code": status, "message": message, "status": status_name}
    if retry_delay:
        error["details"] = [
            {"@type": "type.googleapis.com/google.rpc.RetryInfo", "retryDelay": retry_delay}
        ]
    return Reply.error({"error": error}, status=status, retry_after=retry_after)
