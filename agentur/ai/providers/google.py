"""Google Gemini API (`models/{m}:generateContent`, `:streamGenerateContent?alt=sse`,
`:batchEmbedContents`; key in `x-goog-api-key`, never in the URL).

Mapping: system messages become `systemInstruction`; the assistant is role `model`; tool
results are `functionResponse` parts (`{"result": …}` or `{"error": …}`) in a user turn,
addressed by function name; consecutive turns of one role merge (parallel calls must be
answered in one turn). Tool schemas go as `parametersJsonSchema` (full JSON Schema; the older
`parameters` field accepts only an OpenAPI subset). Gemini returns no call ids, so we mint
them. Gemini 3 wants the `thoughtSignature` of a function call sent back with it: we remember
the signatures we saw (bounded) and send the documented skip value for calls we did not see.
Usage: output includes thinking tokens (billed as output); input includes cached tokens.
"""

from __future__ import annotations

import json
import time
import uuid
from collections import OrderedDict
from collections.abc import AsyncIterator, Mapping, Sequence
from contextlib import aclosing
from typing import Any, ClassVar

from pydantic import Field

from agentur.ai.messages import (
    AiRequest,
    AiResponse,
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
from agentur.ai.providers.base import OPTIONAL_PARAMETERS, ErrorKind
from agentur.ai.providers.http_transport import HttpProvider
from agentur.ai.providers.scripted import estimate_tokens
from agentur.ai.providers.vendor import Vendor, VendorSettings

GOOGLE_BASE_URL = "https://generativelanguage.googleapis.com"
API_VERSION = "v1beta"
SKIP_THOUGHT_SIGNATURE = "skip_thought_signature_validator"
MAX_REMEMBERED_SIGNATURES = 1000
_FILTERED = {"SAFETY", "RECITATION", "BLOCKLIST", "PROHIBITED_CONTENT", "SPII", "IMAGE_SAFETY"}


_FINISH_REASONS = {
    "MAX_TOKENS": "length",
    "MALFORMED_FUNCTION_CALL": "error",
    **dict.fromkeys(_FILTERED, "content_filter"),
}


def parse_usage(metadata: dict[str, Any] | None) -> Usage:
    metadata = metadata or {}
    return Usage(
        input_tokens=int(metadata.get("promptTokenCount") or 0),
        output_tokens=int(metadata.get("candidatesTokenCount") or 0)
        + int(metadata.get("thoughtsTokenCount") or 0),
        cached_tokens=int(metadata.get("cachedContentTokenCount") or 0),
    )


class GoogleProvider(HttpProvider):
    name: str = "google"
    default_base_url: ClassVar[str | None] = GOOGLE_BASE_URL
    finish_reasons: ClassVar[Mapping[str, str]] = _FINISH_REASONS
    reported_keys: ClassVar[tuple[str, str]] = ("modelVersion", "responseId")
    # generationConfig: responseMimeType/responseJsonSchema, topP, stopSequences, seed, penalties
    NATIVE_PARAMETERS: ClassVar[frozenset[str]] = OPTIONAL_PARAMETERS

    def __init__(self, **options: Any) -> None:
        super().__init__(**options)
        self._signatures: OrderedDict[str, str] = OrderedDict()

    def auth_headers(self, api_key: str | None) -> dict[str, str]:
        return {"x-goog-api-key": api_key} if api_key else {}

    @staticmethod
    def _path(model: ModelSpec, method: str) -> str:
        return f"/{API_VERSION}/models/{model.name.removeprefix('models/')}:{method}"

    # -- request -------------------------------------------------------------------------
    def _model_parts(self, model: ModelSpec, message: Message) -> list[dict[str, Any]]:
        parts: list[dict[str, Any]] = [{"text": message.content}] if message.content else []
        for position, call in enumerate(message.tool_calls):
            part: dict[str, Any] = {"functionCall": {"name": call.name, "args": call.arguments}}
            signature = self._signatures.get(call.id)
            if signature is None and position == 0 and model.name.startswith("gemini-3"):
                signature = SKIP_THOUGHT_SIGNATURE
            if signature:
                part["thoughtSignature"] = signature
            parts.append(part)
        return parts

    def map_contents(self, model: ModelSpec, messages: Sequence[Message]) -> list[dict]:
        names = {call.id: call.name for m in messages for call in m.tool_calls}
        contents: list[dict[str, Any]] = []
        for message in messages:
            if message.role == Role.system:
                continue
            if message.role == Role.tool:
                name = message.tool_name or names.get(message.tool_call_id or "", "tool")
                key = "error" if message.is_error else "result"
                parts = [{"functionResponse": {"name": name, "response": {key: message.content}}}]
                role = "user"
            elif message.role == Role.assistant:
                parts, role = self._model_parts(model, message), "model"
            else:
                parts = [{"text": message.content}] if message.content else []
                parts += [
                    {"inlineData": {"mimeType": image.mime_type, "data": image.base64()}}
                    for image in message.images
                ]
                role = "user"
            if not parts:
                continue
            if contents and contents[-1]["role"] == role:
                contents[-1]["parts"] += parts
            else:
                contents.append({"role": role, "parts": parts})
        return contents

    def build_payload(self, model: ModelSpec, request: AiRequest) -> dict[str, Any]:
        options = request.options
        payload: dict[str, Any] = {"contents": self.map_contents(model, request.messages)}
        system = "\n\n".join(
            m.content for m in request.messages if m.role == Role.system and m.content
        )
        if system:
            payload["systemInstruction"] = {"parts": [{"text": system}]}
        if request.tools:
            declarations = [
                {
                    "name": tool.name,
                    "description": tool.description,
                    "parametersJsonSchema": tool.parameters,
                }
                for tool in request.tools
            ]
            payload["tools"] = [{"functionDeclarations": declarations}]
        config: dict[str, Any] = {}
        if options.temperature is not None:
            config["temperature"] = options.temperature
        if limit := options.max_output_tokens or model.max_output_tokens:
            config["maxOutputTokens"] = limit
        if options.response_format != "text":
            config["responseMimeType"] = "application/json"
            if (schema := response_schema(options.response_format)) is not None:
                config["responseJsonSchema"] = schema
        sampling = options.sampling
        for key, value in (
            ("topP", sampling.top_p),
            ("stopSequences", list(sampling.stop) or None),
            ("seed", sampling.seed),
            ("presencePenalty", sampling.presence_penalty),
            ("frequencyPenalty", sampling.frequency_penalty),
        ):
            if value is not None:
                config[key] = value
        if config:
            payload["generationConfig"] = config
        return payload

    # -- reply ---------------------------------------------------------------------------
    def _read_parts(
        self, chunk: dict[str, Any], model: ModelSpec
    ) -> tuple[str, list[ToolCall], str | None]:
        if chunk.get("error"):
            error = chunk["error"]
            raise self.transport.fail(
                ErrorKind.stream_error,
                str(error.get("message", error)),
                model=model.name,
                retryable=int(error.get("code") or 500) >= 500 or error.get("code") == 429,
            )
        candidates = chunk.get("candidates") or []
        if not candidates:
            blocked = (chunk.get("promptFeedback") or {}).get("blockReason")
            return "", [], "SAFETY" if blocked else None
        candidate = candidates[0]
        text: list[str] = []
        calls: list[ToolCall] = []
        for part in (candidate.get("content") or {}).get("parts") or []:
            if "text" in part and not part.get("thought"):
                text.append(part["text"])
            elif "functionCall" in part:
                function = part["functionCall"]
                call_id = function.get("id") or f"call_{uuid.uuid4().hex[:16]}"
                if part.get("thoughtSignature"):
                    self._remember(call_id, part["thoughtSignature"])
                calls.append(
                    ToolCall(call_id, function.get("name", ""), function.get("args") or {})
                )
        return "".join(text), calls, candidate.get("finishReason")

    def _remember(self, call_id: str, signature: str) -> None:
        self._signatures[call_id] = signature
        while len(self._signatures) > MAX_REMEMBERED_SIGNATURES:
            self._signatures.popitem(last=False)

    async def complete(self, model: ModelSpec, request: AiRequest) -> AiResponse:
        started = time.perf_counter()
        body = await self.transport.post_json(
            self._path(model, "generateContent"),
            self.build_payload(model, request),
            model=model.name,
        )
        text, calls, reason = self._read_parts(body if isinstance(body, dict) else {}, model)
        usage = parse_usage(body.get("usageMetadata"))
        return self.reply(model, text, calls, usage, reason, started, body)

    async def stream(self, model: ModelSpec, request: AiRequest) -> AsyncIterator[StreamEvent]:
        started = time.perf_counter()
        path = self._path(model, "streamGenerateContent")
        payload = self.build_payload(model, request)
        text: list[str] = []
        calls: list[ToolCall] = []
        usage = Usage()
        reason: str | None = None
        reported: dict[str, Any] = {}
        events = self.transport.stream_sse(path, payload, model=model.name, params={"alt": "sse"})
        async with aclosing(events) as stream_events:
            async for event in stream_events:
                chunk = self.transport.decode(event.data, model=model.name)
                if not isinstance(chunk, dict):
                    continue
                piece, new_calls, chunk_reason = self._read_parts(chunk, model)
                reason = chunk_reason or reason
                if piece:
                    text.append(piece)
                    yield TextDelta(piece)
                for call in new_calls:
                    yield ToolCallDelta(len(calls), call.id, call.name, json.dumps(call.arguments))
                    calls.append(call)
                if chunk.get("usageMetadata"):
                    usage = parse_usage(chunk["usageMetadata"])
                reported.update(
                    (key, chunk[key]) for key in ("modelVersion", "responseId") if key in chunk
                )
        if reason is None:
            raise self.transport.fail(
                ErrorKind.stream_broken,
                "ended without a finish reason",
                model=model.name,
                retryable=True,
            )
        yield StreamDone(self.reply(model, "".join(text), calls, usage, reason, started, reported))

    async def embed(self, model: ModelSpec, texts: list[str]) -> tuple[list[list[float]], int]:
        if not texts:
            return [], 0
        resource = f"models/{model.name.removeprefix('models/')}"
        requests = [{"model": resource, "content": {"parts": [{"text": text}]}} for text in texts]
        body = await self.transport.post_json(
            self._path(model, "batchEmbedContents"), {"requests": requests}, model=model.name
        )
        vectors = [
            [float(v) for v in item.get("values", [])] for item in body.get("embeddings", [])
        ]
        self.transport.check_embedding_count(len(vectors), len(texts), model=model.name)
        # The embeddings API reports no token counts; bill an estimate.
        return vectors, sum(estimate_tokens(text) for text in texts)


class GoogleSettings(VendorSettings):
    google_api_key: str | None = Field(default=None, description="Google Gemini API key.")
    google_base_url: str | None = Field(default=None, description="Google base URL override.")


VENDOR = Vendor(GoogleSettings, GoogleProvider)
