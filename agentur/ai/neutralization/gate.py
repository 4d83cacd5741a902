"""Applies the neutralizer to everything in a request that reaches a model, and re-identifies
what comes back: answer text, streamed deltas and tool-call arguments."""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import replace
from typing import Any

from agentur.ai.messages import AiRequest, AiResponse, Message, ToolCall
from agentur.ai.neutralization.neutralizer import Neutralizer
from agentur.ai.neutralization.placeholder_map import (
    MAX_PLACEHOLDER_LENGTH,
    PLACEHOLDER,
    PlaceholderMap,
)


def _map_strings(value: Any, function: Any) -> Any:
    """`function` applied to every string inside JSON-like data (tool-call arguments)."""
    if isinstance(value, str):
        return function(value)
    if isinstance(value, dict):
        return {key: _map_strings(item, function) for key, item in value.items()}
    if isinstance(value, list):
        return [_map_strings(item, function) for item in value]
    return value


def request_texts(request: AiRequest) -> list[str]:
    """Every piece of caller-provided text in the request (for `block`)."""
    texts: list[str] = []
    for message in request.messages:
        texts.append(message.content)
        for call in message.tool_calls:
            texts.append(json.dumps(call.arguments, ensure_ascii=False))
    return texts


def find_entity_types(
    request: AiRequest, neutralizer: Neutralizer, custom_terms: Sequence[str]
) -> set[str]:
    found: set[str] = set()
    for text in request_texts(request):
        found |= neutralizer.entity_types(text, custom_terms)
    return found


def neutralize_request(
    request: AiRequest,
    neutralizer: Neutralizer,
    mapping: PlaceholderMap,
    custom_terms: Sequence[str],
) -> AiRequest:
    """System prompt, every message, earlier tool calls and tool results — all neutralized."""

    def clean(text: str) -> str:
        return neutralizer.neutralize(text, mapping, custom_terms)

    def clean_message(message: Message) -> Message:
        calls = tuple(
            ToolCall(call.id, call.name, _map_strings(call.arguments, clean))
            for call in message.tool_calls
        )
        return replace(message, content=clean(message.content), tool_calls=calls)

    return replace(request, messages=tuple(clean_message(m) for m in request.messages))


def reidentify_arguments(arguments: dict[str, Any], mapping: PlaceholderMap) -> dict[str, Any]:
    return _map_strings(arguments, mapping.reidentify)


def reidentify_response(response: AiResponse, mapping: PlaceholderMap) -> AiResponse:
    if not len(mapping):
        return response
    calls = tuple(
        ToolCall(call.id, call.name, reidentify_arguments(call.arguments, mapping))
        for call in response.tool_calls
    )
    sources = tuple(
        replace(
            source,
            title=mapping.reidentify(source.title),
            snippet=mapping.reidentify(source.snippet),
        )
        for source in response.sources
    )
    return replace(
        response, text=mapping.reidentify(response.text), tool_calls=calls, sources=sources
    )


def reidentify_json_fragment(text: str, mapping: PlaceholderMap) -> str:
    """Placeholders inside streamed JSON argument text; values are escaped for JSON strings."""
    if not len(mapping) or "[" not in text:
        return text

    def value(match: Any) -> str:
        original = mapping.value_of(match.group())
        return match.group() if original is None else json.dumps(original)[1:-1]

    return PLACEHOLDER.sub(value, text)


class StreamReidentifier:
    """Re-identifies a stream of text pieces: a placeholder split across two deltas
    (`"[EMA"`, `"IL_1] …"`) is held back until it is complete."""

    def __init__(self, mapping: PlaceholderMap, *, json_text: bool = False) -> None:
        self.mapping = mapping
        self.json_text = json_text
        self._pending = ""

    def _apply(self, text: str) -> str:
        if self.json_text:
            return reidentify_json_fragment(text, self.mapping)
        return self.mapping.reidentify(text)

    def feed(self, text: str) -> str:
        text = self._pending + text
        self._pending = ""
        cut = text.rfind("[")
        if cut != -1 and "]" not in text[cut:] and len(text) - cut < MAX_PLACEHOLDER_LENGTH:
            text, self._pending = text[:cut], text[cut:]
        return self._apply(text)

    def flush(self) -> str:
        text, self._pending = self._pending, ""
        return self._apply(text)
