"""Chat-completion objects and stream chunks in OpenAI's wire format.

One `Completion` per answer: it knows the id, creation time and model every chunk repeats, and
builds the whole `chat.completion` or each `chat.completion.chunk` (SSE `data:` lines, ended by
`data: [DONE]`)."""

from __future__ import annotations

import json
import time
import uuid
from dataclasses import dataclass, field
from typing import Any

from agentur.ai.messages import REPETITION, ToolCall, Usage
from agentur.api.openai_compatible.errors import error_body

# The reasons OpenAI clients know; the gateway's "error" has no counterpart.
FINISH_REASONS = {"stop", "length", "tool_calls", "content_filter"}
DONE = "data: [DONE]\n\n"
STREAM_HEADERS = {"Cache-Control": "no-cache", "X-Accel-Buffering": "no"}


def finish_reason(reason: str, tool_calls: bool) -> str:
    if tool_calls:
        return "tool_calls"
    if reason == REPETITION:  # the gateway stopped a looping reply: cut short, like a limit
        return "length"
    return reason if reason in FINISH_REASONS else "stop"


def usage_dict(usage: Usage) -> dict[str, Any]:
    return {
        "prompt_tokens": usage.input_tokens,
        "completion_tokens": usage.output_tokens,
        "total_tokens": usage.total_tokens,
        "prompt_tokens_details": {"cached_tokens": usage.cached_tokens},
    }


def tool_call_dict(call: ToolCall) -> dict[str, Any]:
    return {
        "id": call.id,
        "type": "function",
        "function": {"name": call.name, "arguments": json.dumps(call.arguments)},
    }


def sse(payload: dict[str, Any]) -> str:
    return f"data: {json.dumps(payload, ensure_ascii=False)}\n\n"


@dataclass(frozen=True, slots=True)
class Completion:
    model: str
    id: str = field(default_factory=lambda: f"chatcmpl-{uuid.uuid4().hex}")
    created: int = field(default_factory=lambda: int(time.time()))

    def _head(self, kind: str) -> dict[str, Any]:
        return {"id": self.id, "object": kind, "created": self.created, "model": self.model}

    def whole(
        self, text: str, tool_calls: tuple[ToolCall, ...], reason: str, usage: Usage
    ) -> dict[str, Any]:
        message: dict[str, Any] = {"role": "assistant", "content": text or None}
        if tool_calls:
            message["tool_calls"] = [tool_call_dict(call) for call in tool_calls]
        return {
            **self._head("chat.completion"),
            "choices": [
                {
                    "index": 0,
                    "message": message,
                    "finish_reason": finish_reason(reason, bool(tool_calls)),
                    "logprobs": None,
                }
            ],
            "usage": usage_dict(usage),
        }

    def chunk(self, delta: dict[str, Any], reason: str | None = None) -> str:
        choice = {"index": 0, "delta": delta, "finish_reason": reason, "logprobs": None}
        return sse({**self._head("chat.completion.chunk"), "choices": [choice]})

    def role(self) -> str:
        return self.chunk({"role": "assistant", "content": ""})

    def text(self, text: str) -> str:
        return self.chunk({"content": text})

    def tool_call(self, index: int, call_id: str | None, name: str | None, arguments: str) -> str:
        entry: dict[str, Any] = {"index": index, "function": {"arguments": arguments}}
        if call_id is not None:
            entry["id"] = call_id
            entry["type"] = "function"
        if name is not None:
            entry["function"]["name"] = name
        return self.chunk({"tool_calls": [entry]})

    def finish(self, reason: str) -> str:
        return self.chunk({}, reason)

    def usage(self, usage: Usage) -> str:
        """The extra last chunk of `stream_options.include_usage`: no choices, only usage."""
        return sse(
            {**self._head("chat.completion.chunk"), "choices": [], "usage": usage_dict(usage)}
        )

    def error(self, message: str, status: int = 502, code: str | None = None) -> str:
        """A failure after the stream began: OpenAI clients raise on an `error` payload (the
        `openai` SDK: `APIError` with this message and the error object as `body`)."""
        return sse(error_body(status, message, None, code))
