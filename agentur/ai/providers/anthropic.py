"""Anthropic Messages API (`POST {base}/v1/messages`, `x-api-key` + `anthropic-version`).

Mapping: system messages become the top-level `system`; tool results become `tool_result`
blocks in a user turn (with `is_error`); consecutive turns of one role merge into one turn,
because the API requires alternating roles. `max_tokens` is mandatory here: the request's, or
the model's maximum. Usage: `input_tokens` includes cache reads and cache writes (Anthropic
reports them apart), `cached_tokens` is the cache reads, `cache_write_tokens` the writes.

Prompt caching: Anthropic caches only up to explicit `cache_control` breakpoints. One sits on
the system prompt (its prefix is the tools, then the system: both cached together), one on the
last block before the first `volatile` message — the end of what the next round sends again
unchanged. Requests without a volatile part get only the first: a one-off call would pay the
cache-write premium for nothing.
"""

from __future__ import annotations

import json
import re
import time
from collections.abc import AsyncIterator, Mapping, Sequence
from contextlib import aclosing
from typing import Any, ClassVar

from pydantic import Field

from agentur.ai.messages import (
    AiRequest,
    AiResponse,
    JsonSchemaFormat,
    Message,
    Role,
    StreamDone,
    StreamEvent,
    TextDelta,
    ToolCall,
    ToolCallDelta,
    Usage,
    response_schema,
)
from agentur.ai.model_spec import ModelSpec
from agentur.ai.providers.base import ErrorKind, ProviderError
from agentur.ai.providers.http_transport import HttpProvider
from agentur.ai.providers.tool_arguments import ToolCallAssembler
from agentur.ai.providers.vendor import Vendor, VendorSettings

ANTHROPIC_BASE_URL = "https://api.anthropic.com"
ANTHROPIC_VERSION = "2023-06-01"
_INVALID_ID_CHARS = re.compile(r"[^a-zA-Z0-9_-]")
_STOP_REASONS = {
    "end_turn": "stop",
    "stop_sequence": "stop",
    "pause_turn": "stop",
    "max_tokens": "length",
    "model_context_window_exceeded": "length",
    "tool_use": "tool_calls",
    "refusal": "content_filter",
}
CACHE_BREAKPOINT = {"type": "ephemeral"}
_RETRYABLE_STREAM_ERRORS = {"overloaded_error", "api_error", "rate_limit_error", "timeout_error"}


def tool_use_id(call_id: str) -> str:
    """Anthropic accepts `[a-zA-Z0-9_-]+`; ids from other providers are made to fit."""
    return _INVALID_ID_CHARS.sub("_", call_id) or "toolu_0"


def _blocks(message: Message) -> list[dict[str, Any]]:
    if message.role == Role.tool:
        block: dict[str, Any] = {
            "type": "tool_result",
            "tool_use_id": tool_use_id(message.tool_call_id or ""),
            "content": message.content,
        }
        if message.is_error:
            block["is_error"] = True
        return [block]
    # Images first: Anthropic's vision guide finds image-then-text works best.
    blocks: list[dict[str, Any]] = [
        {
            "type": "image",
            "source": {"type": "base64", "media_type": image.mime_type, "data": image.base64()},
        }
        for image in message.images
    ]
    if message.content:  # empty text blocks are rejected by the API
        blocks.append({"type": "text", "text": message.content})
    blocks += [
        {"type": "tool_use", "id": tool_use_id(call.id), "name": call.name, "input": call.arguments}
        for call in message.tool_calls
    ]
    return blocks


def map_messages(messages: Sequence[Message]) -> tuple[str, list[dict[str, Any]]]:
    system = "\n\n".join(m.content for m in messages if m.role == Role.system and m.content)
    turns: list[dict[str, Any]] = []
    stable_end: dict[str, Any] | None = None  # the last block before anything volatile
    volatile_seen = False
    for message in messages:
        if message.role == Role.system:
            continue
        role = "assistant" if message.role == Role.assistant else "user"
        blocks = _blocks(message)
        if not blocks:
            continue
        if turns and turns[-1]["role"] == role:
            turns[-1]["content"] += blocks
        else:
            turns.append({"role": role, "content": blocks})
        volatile_seen = volatile_seen or message.volatile
        if not volatile_seen:
            stable_end = blocks[-1]
    if volatile_seen and stable_end is not None:
        stable_end["cache_control"] = dict(CACHE_BREAKPOINT)
    return system, turns


def _format_instruction(option: str | dict[str, Any] | JsonSchemaFormat) -> str:
    # No JSON mode in the Messages API version spoken here; the instruction is the portable
    # way for agentur's own calls. It is not a guarantee, so `response_format` is not among
    # NATIVE_PARAMETERS and the OpenAI-compatible API refuses it for these models.
    if (schema := response_schema(option)) is not None:
        return "Answer with JSON matching this JSON schema and nothing else:\n" + json.dumps(schema)
    if option == "json":
        return "Answer with a single JSON value and nothing else."
    return ""


def parse_usage(usage: dict[str, Any] | None, previous: Usage | None = None) -> Usage:
    usage = usage or {}
    before = previous or Usage()
    if "input_tokens" in usage or "cache_read_input_tokens" in usage:
        cache_read = int(usage.get("cache_read_input_tokens") or 0)
        cache_write = int(usage.get("cache_creation_input_tokens") or 0)
        input_tokens = int(usage.get("input_tokens") or 0) + cache_read + cache_write
    else:
        cache_read, input_tokens = before.cached_tokens, before.input_tokens
        cache_write = before.cache_write_tokens
    output = int(usage["output_tokens"]) if "output_tokens" in usage else before.output_tokens
    return Usage(input_tokens, output, cache_read, cache_write)


class AnthropicProvider(HttpProvider):
    name: str = "anthropic"
    default_base_url: ClassVar[str | None] = ANTHROPIC_BASE_URL
    finish_reasons: ClassVar[Mapping[str, str]] = _STOP_REASONS
    NATIVE_PARAMETERS: ClassVar[frozenset[str]] = frozenset({"top_p", "stop"})

    def auth_headers(self, api_key: str | None) -> dict[str, str]:
        headers = {"anthropic-version": ANTHROPIC_VERSION}
        if api_key:
            headers["x-api-key"] = api_key
        return headers

    def build_payload(self, model: ModelSpec, request: AiRequest, *, stream: bool) -> dict:
        options = request.options
        system, turns = map_messages(request.messages)
        instruction = _format_instruction(options.response_format)
        system = "\n\n".join(part for part in (system, instruction) if part)
        payload: dict[str, Any] = {
            "model": model.name,
            "max_tokens": options.max_output_tokens or model.max_output_tokens,
            "messages": turns,
        }
        if system:
            payload["system"] = [
                {"type": "text", "text": system, "cache_control": dict(CACHE_BREAKPOINT)}
            ]
        if options.temperature is not None:
            payload["temperature"] = options.temperature
        if options.sampling.top_p is not None:
            payload["top_p"] = options.sampling.top_p
        if options.sampling.stop:
            payload["stop_sequences"] = list(options.sampling.stop)
        if request.tools:
            payload["tools"] = [
                {
                    "name": tool.name,
                    "description": tool.description,
                    "input_schema": tool.parameters,
                }
                for tool in request.tools
            ]
            if not system:  # the breakpoint that would have covered the tools
                payload["tools"][-1]["cache_control"] = dict(CACHE_BREAKPOINT)
        if stream:
            payload["stream"] = True
        return payload

    async def complete(self, model: ModelSpec, request: AiRequest) -> AiResponse:
        started = time.perf_counter()
        body = await self.transport.post_json(
            "/v1/messages", self.build_payload(model, request, stream=False), model=model.name
        )
        if not isinstance(body, dict) or "content" not in body:
            raise self.transport.fail(
                ErrorKind.bad_reply, "reply without content", model=model.name, retryable=True
            )
        blocks = body.get("content") or []
        text = "".join(block.get("text", "") for block in blocks if block.get("type") == "text")
        calls = tuple(
            ToolCall(block["id"], block["name"], block.get("input") or {})
            for block in blocks
            if block.get("type") == "tool_use"
        )
        usage = parse_usage(body.get("usage"))
        return self.reply(model, text, calls, usage, body.get("stop_reason"), started, body)

    async def stream(self, model: ModelSpec, request: AiRequest) -> AsyncIterator[StreamEvent]:
        started = time.perf_counter()
        payload = self.build_payload(model, request, stream=True)
        assembler = ToolCallAssembler()
        tool_index_of_block: dict[int, int] = {}
        text: list[str] = []
        usage = Usage()
        stop_reason: str | None = None
        finished = False
        reported: dict[str, Any] = {}
        events = self.transport.stream_sse("/v1/messages", payload, model=model.name)
        async with aclosing(events) as events:
            async for event in events:
                data = self.transport.decode(event.data, model=model.name)
                kind = data.get("type") if isinstance(data, dict) else None
                if kind == "message_start":
                    reported = data.get("message") or {}
                    usage = parse_usage(reported.get("usage"))
                elif kind == "content_block_start":
                    block = data.get("content_block") or {}
                    if block.get("type") == "tool_use":
                        index = len(tool_index_of_block)
                        tool_index_of_block[data.get("index", index)] = index
                        assembler.add(index, block.get("id"), block.get("name"), "")
                        yield ToolCallDelta(index, block.get("id"), block.get("name"), "")
                elif kind == "content_block_delta":
                    delta = data.get("delta") or {}
                    if delta.get("type") == "text_delta" and delta.get("text"):
                        text.append(delta["text"])
                        yield TextDelta(delta["text"])
                    elif delta.get("type") == "input_json_delta":
                        index = tool_index_of_block.get(data.get("index", -1), 0)
                        fragment = delta.get("partial_json") or ""
                        assembler.add(index, None, None, fragment)
                        yield ToolCallDelta(index, None, None, fragment)
                elif kind == "message_delta":
                    stop_reason = (data.get("delta") or {}).get("stop_reason") or stop_reason
                    usage = parse_usage(data.get("usage"), usage)
                elif kind == "message_stop":
                    finished = True
                    break
                elif kind == "error":
                    raise self._stream_error(data.get("error") or {}, model.name)
        if not finished:
            raise self.transport.fail(
                ErrorKind.stream_broken,
                "ended without message_stop",
                model=model.name,
                retryable=True,
            )
        calls = assembler.calls()
        yield StreamDone(
            self.reply(model, "".join(text), calls, usage, stop_reason, started, reported)
        )

    def _stream_error(self, error: dict[str, Any], model: str) -> ProviderError:
        kind = str(error.get("type") or "")
        return self.transport.fail(
            ErrorKind.stream_error,
            f"{kind}: {error.get('message', '')}",
            model=model,
            retryable=kind in _RETRYABLE_STREAM_ERRORS,
        )


class AnthropicSettings(VendorSettings):
    anthropic_api_key: str | None = Field(default=None, description="Anthropic API key.")
    anthropic_base_url: str | None = Field(default=None, description="Anthropic base URL override.")


VENDOR = Vendor(AnthropicSettings, AnthropicProvider)
