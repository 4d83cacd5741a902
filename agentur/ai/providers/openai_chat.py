"""The OpenAI chat-completions wire format (`POST {base}/chat/completions`, `/embeddings`).

Spoken by OpenAI itself and by many others (Ollama, vLLM, llama.cpp server, Mistral,
Perplexity); the thin vendor modules subclass `OpenAIChatProvider` and override the hooks for
their quirks (credentials, base URL, tool-call ids, citations …).

Decisions: tool schemas go without `strict` (strict mode needs schemas with every property
required and `additionalProperties: false`, which our tools don't promise, and local servers
reject it); reasoning models (o1/o3/o4…, gpt-5*) get `max_completion_tokens` and never a
temperature. Usage: `input_tokens` counts the whole prompt including cached tokens.
"""

from __future__ import annotations

import json
import re
import time
from collections.abc import AsyncIterator, Mapping, Sequence
from contextlib import aclosing
from dataclasses import replace
from typing import Any, ClassVar

from agentur.ai.messages import (
    AiRequest,
    AiResponse,
    ImagePart,
    JsonSchemaFormat,
    Message,
    Role,
    Sampling,
    Source,
    StreamDone,
    StreamEvent,
    TextDelta,
    ToolCall,
    ToolCallDelta,
    Usage,
)
from agentur.ai.model_spec import ModelSpec
from agentur.ai.providers.base import OPTIONAL_PARAMETERS, ErrorKind, ProviderError
from agentur.ai.providers.http_transport import HttpProvider
from agentur.ai.providers.tool_arguments import ToolCallAssembler, parse_tool_arguments

_REASONING_MODEL = re.compile(r"^(o\d|gpt-5)")
_FINISH_REASONS = {
    "stop": "stop",
    "length": "length",
    "model_length": "length",  # Mistral
    "tool_calls": "tool_calls",
    "function_call": "tool_calls",
    "content_filter": "content_filter",
    "error": "error",
}


def is_reasoning_model(name: str) -> bool:
    """o-series and GPT-5.x, also behind a router prefix (`openai/o3-mini`)."""
    return bool(_REASONING_MODEL.match(name.rsplit("/", 1)[-1].lower()))


def parse_usage(usage: dict[str, Any] | None) -> Usage:
    if not usage:
        return Usage()
    details = usage.get("prompt_tokens_details") or {}
    return Usage(
        input_tokens=int(usage.get("prompt_tokens") or 0),
        output_tokens=int(usage.get("completion_tokens") or 0),
        cached_tokens=int(details.get("cached_tokens") or 0),
    )


def content_text(content: Any) -> str:
    """`content` is a string, null, or (Mistral reasoning models) a list of typed chunks."""
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "".join(
            part.get("text", "")
            for part in content
            if isinstance(part, dict) and part.get("type") == "text"
        )
    return ""


def parse_tool_call(position: int, raw: dict[str, Any]) -> ToolCall:
    function = raw.get("function") or {}
    return ToolCall(
        raw.get("id") or f"call_{position}",
        function.get("name", ""),
        parse_tool_arguments(function.get("arguments")),
    )


def response_format(option: str | dict[str, Any] | JsonSchemaFormat) -> dict[str, Any] | None:
    if option == "json":
        return {"type": "json_object"}
    if isinstance(option, dict):
        option = JsonSchemaFormat(option)
    if isinstance(option, JsonSchemaFormat):
        named: dict[str, Any] = {"name": option.name, "schema": option.schema}
        if option.strict is not None:
            named["strict"] = option.strict
        return {"type": "json_schema", "json_schema": named}
    return None


def sampling_payload(sampling: Sampling, native: frozenset[str]) -> dict[str, Any]:
    """The sampling fields under their OpenAI names, those of `native` only."""
    values = {
        "top_p": sampling.top_p,
        "stop": list(sampling.stop) or None,
        "seed": sampling.seed,
        "presence_penalty": sampling.presence_penalty,
        "frequency_penalty": sampling.frequency_penalty,
    }
    return {key: value for key, value in values.items() if value is not None and key in native}


def _joined(first: Any, second: Any) -> Any:
    """Two user turns' contents as one (text, or typed parts when either has images)."""
    if isinstance(first, str) and isinstance(second, str):
        return f"{first}\n\n{second}"
    as_parts = [[{"type": "text", "text": c}] if isinstance(c, str) else c for c in (first, second)]
    return as_parts[0] + as_parts[1]


class OpenAIChatProvider(HttpProvider):
    name: str = "openai_chat"
    finish_reasons: ClassVar[Mapping[str, str]] = _FINISH_REASONS
    # Vendor quirks; the vendor subclasses override these.
    send_stream_options: ClassVar[bool] = True  # ask for usage in streams
    supports_tools: ClassVar[bool] = True
    NATIVE_PARAMETERS: ClassVar[frozenset[str]] = OPTIONAL_PARAMETERS

    # -- hooks for vendor quirks ---------------------------------------------------------
    def map_tool_call_id(self, call_id: str) -> str:
        return call_id

    def image_part(self, image: ImagePart) -> dict[str, Any]:
        return {"type": "image_url", "image_url": {"url": image.data_url()}}

    def user_content(self, message: Message) -> str | list[dict[str, Any]]:
        """Plain text, or typed parts when the message carries images."""
        if not message.images:
            return message.content
        parts = [{"type": "text", "text": message.content}] if message.content else []
        return parts + [self.image_part(image) for image in message.images]

    def map_message(self, message: Message) -> dict[str, Any]:
        if message.role == Role.tool:
            return {
                "role": "tool",
                "tool_call_id": self.map_tool_call_id(message.tool_call_id or ""),
                "content": message.content,
            }
        if message.role == Role.assistant and message.tool_calls:
            return {
                "role": "assistant",
                "content": message.content or None,
                "tool_calls": [
                    {
                        "id": self.map_tool_call_id(call.id),
                        "type": "function",
                        "function": {"name": call.name, "arguments": json.dumps(call.arguments)},
                    }
                    for call in message.tool_calls
                ],
            }
        return {"role": message.role.value, "content": self.user_content(message)}

    def map_messages(
        self, messages: Sequence[Message], model: ModelSpec | None = None
    ) -> list[dict[str, Any]]:
        """The messages on the wire. The round's context (a `volatile` message) is its own user
        turn, so nothing of it reads as the user's words; only for a model whose chat template
        refuses two user turns in a row (`join_round_context`) it joins the user's message,
        after the user's text (the cached prefix holds) and marked off by its header."""
        join = model is not None and model.join_round_context
        mapped: list[dict[str, Any]] = []
        for message in messages:
            item = self.map_message(message)
            if (
                join
                and message.volatile
                and mapped
                and mapped[-1]["role"] == item["role"] == "user"
            ):
                item = {**item, "content": _joined(mapped.pop()["content"], item["content"])}
            mapped.append(item)
        return mapped

    def extra_text(self, body: dict[str, Any]) -> str:
        """Text appended to the answer from top-level reply fields (Perplexity citations)."""
        return ""

    def sources(self, body: dict[str, Any]) -> tuple[Source, ...]:
        """Structured sources from top-level reply fields (Perplexity search results)."""
        return ()

    def extra_payload(self, request: AiRequest) -> dict[str, Any]:
        """Vendor fields added to the request body (Perplexity search filters)."""
        return {}

    # -- requests ------------------------------------------------------------------------
    def build_payload(self, model: ModelSpec, request: AiRequest, *, stream: bool) -> dict:
        options = request.options
        payload: dict[str, Any] = {
            "model": model.name,
            "messages": self.map_messages(request.messages, model),
        }
        if request.tools:
            if not self.supports_tools:
                raise self.transport.fail(
                    ErrorKind.unsupported, "the model does not support tools", model=model.name
                )
            payload["tools"] = [
                {
                    "type": "function",
                    "function": {
                        "name": tool.name,
                        "description": tool.description,
                        "parameters": tool.parameters,
                    },
                }
                for tool in request.tools
            ]
        reasoning = is_reasoning_model(model.name)
        # Always a limit (the gateway's, else the model's): without one a local server writes
        # until its context is full.
        limit = options.max_output_tokens or model.max_output_tokens
        if limit:
            payload["max_completion_tokens" if reasoning else "max_tokens"] = limit
        if options.temperature is not None and not reasoning:
            payload["temperature"] = options.temperature
        if (format_ := response_format(options.response_format)) is not None:
            payload["response_format"] = format_
        payload.update(sampling_payload(options.sampling, self.NATIVE_PARAMETERS))
        payload.update(self.extra_payload(request))
        if stream:
            payload["stream"] = True
            if self.send_stream_options:
                payload["stream_options"] = {"include_usage": True}
        return payload

    async def complete(self, model: ModelSpec, request: AiRequest) -> AiResponse:
        started = time.perf_counter()
        payload = self.build_payload(model, request, stream=False)
        body = await self.transport.post_json("/chat/completions", payload, model=model.name)
        choices = body.get("choices") if isinstance(body, dict) else None
        if not choices:
            raise self.transport.fail(
                ErrorKind.bad_reply, "reply without choices", model=model.name, retryable=True
            )
        choice = choices[0]
        message = choice.get("message") or {}
        calls = tuple(
            parse_tool_call(position, raw)
            for position, raw in enumerate(message.get("tool_calls") or [])
        )
        text = content_text(message.get("content")) + self.extra_text(body)
        usage = parse_usage(body.get("usage"))
        response = self.reply(model, text, calls, usage, choice.get("finish_reason"), started, body)
        sources = self.sources(body)
        return replace(response, sources=sources) if sources else response

    async def stream(self, model: ModelSpec, request: AiRequest) -> AsyncIterator[StreamEvent]:
        started = time.perf_counter()
        payload = self.build_payload(model, request, stream=True)
        assembler = ToolCallAssembler()
        text: list[str] = []
        usage = Usage()
        reason: str | None = None
        done = False
        top_level: dict[str, Any] = {}
        events = self.transport.stream_sse("/chat/completions", payload, model=model.name)
        async with aclosing(events) as events:
            async for event in events:
                if event.data.strip() == "[DONE]":
                    done = True
                    break
                chunk = self.transport.decode(event.data, model=model.name)
                if not isinstance(chunk, dict):
                    continue
                if chunk.get("error"):
                    raise self._stream_error(chunk["error"], model.name)
                if chunk.get("usage"):
                    usage = parse_usage(chunk["usage"])
                top_level.update({k: v for k, v in chunk.items() if k not in ("choices", "usage")})
                for choice in chunk.get("choices") or []:
                    delta = choice.get("delta") or {}
                    piece = content_text(delta.get("content"))
                    if piece:
                        text.append(piece)
                        yield TextDelta(piece)
                    for position, raw in enumerate(delta.get("tool_calls") or []):
                        function = raw.get("function") or {}
                        index = raw.get("index", position)
                        fragment = function.get("arguments") or ""
                        if isinstance(fragment, dict):  # some local servers send objects
                            fragment = json.dumps(fragment)
                        assembler.add(index, raw.get("id"), function.get("name"), fragment)
                        yield ToolCallDelta(index, raw.get("id"), function.get("name"), fragment)
                    reason = choice.get("finish_reason") or reason
        if not done and reason is None:
            raise self.transport.fail(
                ErrorKind.stream_broken,
                "ended before the model finished",
                model=model.name,
                retryable=True,
            )
        extra = self.extra_text(top_level)
        if extra:
            text.append(extra)
            yield TextDelta(extra)
        calls = assembler.calls()
        yield StreamDone(self.reply(model, "".join(text), calls, usage, reason, started, top_level))

    def _stream_error(self, error: Any, model: str) -> ProviderError:
        message = error.get("message") if isinstance(error, dict) else str(error)
        kind = str(error.get("type") or error.get("code") or "") if isinstance(error, dict) else ""
        retryable = any(word in kind for word in ("server", "overloaded", "rate_limit", "timeout"))
        return self.transport.fail(
            ErrorKind.stream_error, str(message), model=model, retryable=retryable
        )
