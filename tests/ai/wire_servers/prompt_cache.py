"""Provider prompt caches, simulated on what a wire server received: replies whose usage reports
the cached tokens the real provider would, so a bench sees what a prompt layout earns.

The rules modelled (as documented by the vendors): OpenAI caches automatically the longest
prefix shared with an earlier request, from 1,024 tokens, in steps of 128; Gemini's implicit
cache likewise from 1,024 tokens; Anthropic caches only up to `cache_control` breakpoints — a
breakpoint is written (at the cache-write price) unless the cache holds it, and a hit is looked
for at every block boundary up to 20 blocks before a breakpoint (read at the cached price), from
1,024 tokens; the markers themselves are not part of the cached text. The prompt is what
the provider renders: tool definitions first, then the system prompt, then the turns. Token
counts come from the caller's `count` function.
"""

from __future__ import annotations

import json
import os
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from tests.ai.wire_servers.server import ReceivedRequest

Count = Callable[[str], int]
MIN_CACHED_TOKENS = 1_024
OPENAI_CACHE_STEP = 128
ANTHROPIC_LOOKBACK_BLOCKS = 20


def _text(value: Any) -> str:
    if isinstance(value, dict):
        value = {key: item for key, item in value.items() if key != "cache_control"}
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"))


def rendered(wire: str, body: dict[str, Any]) -> list[tuple[str, bool]]:
    """The prompt in the order the provider reads it, as (segment, breakpoint after it)."""
    if wire == "openai":
        return [(_text(body.get("tools", [])), False)] + [
            (_text(message), False) for message in body["messages"]
        ]
    if wire == "google":
        head = [(_text(body.get("tools", [])), False)]
        head.append((_text(body.get("systemInstruction", {})), False))
        return head + [(_text(content), False) for content in body["contents"]]
    segments = [(_text(tool), "cache_control" in tool) for tool in body.get("tools", [])]
    system = body.get("system", [])
    if isinstance(system, str):  # a plain string carries no breakpoint
        system = [{"type": "text", "text": system}]
    segments += [(_text(block), "cache_control" in block) for block in system]
    for message in body["messages"]:
        segments.append((message["role"], False))
        segments += [(_text(block), "cache_control" in block) for block in message["content"]]
    return segments


@dataclass(frozen=True, slots=True)
class CacheUsage:
    prompt_tokens: int
    cached_tokens: int  # read from the cache
    written_tokens: int = 0  # written to it (Anthropic)


@dataclass
class PromptCache:
    wire: str  # "openai", "anthropic" or "google"
    count: Count
    seen: list[str] = field(default_factory=list)
    history: list[CacheUsage] = field(default_factory=list)

    def usage(self, request: ReceivedRequest) -> CacheUsage:
        segments = rendered(self.wire, request.json)
        prompt = "".join(text for text, _ in segments)
        result = (
            self._breakpoints(segments, prompt)
            if self.wire == "anthropic"
            else self._automatic(prompt)
        )
        self.history.append(result)
        return result

    def _automatic(self, prompt: str) -> CacheUsage:
        shared = max((len(os.path.commonprefix([old, prompt])) for old in self.seen), default=0)
        self.seen.append(prompt)
        cached = self.count(prompt[:shared])
        if cached < MIN_CACHED_TOKENS:
            cached = 0
        elif self.wire == "openai":
            cached -= cached % OPENAI_CACHE_STEP
        return CacheUsage(self.count(prompt), cached)

    def _breakpoints(self, segments: list[tuple[str, bool]], prompt: str) -> CacheUsage:
        boundaries, breakpoints, position = [], [], 0
        for text, breakpoint_after in segments:
            position += len(text)
            boundaries.append(position)
            if breakpoint_after:
                breakpoints.append(len(boundaries) - 1)
        read_end = 0
        for index in breakpoints:
            for candidate in boundaries[max(0, index - ANTHROPIC_LOOKBACK_BLOCKS) : index + 1]:
                if prompt[:candidate] in self.seen:
                    read_end = max(read_end, candidate)
        written_end = boundaries[breakpoints[-1]] if breakpoints else 0
        if self.count(prompt[:written_end]) < MIN_CACHED_TOKENS:
            written_end = 0
        self.seen += [prompt[: boundaries[i]] for i in breakpoints if boundaries[i] <= written_end]
        read = self.count(prompt[:read_end])
        written = self.count(prompt[:written_end]) - read if written_end > read_end else 0
        return CacheUsage(self.count(prompt), read, written)
