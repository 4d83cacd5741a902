"""The simulated provider prompt caches behind bench/prompt_caching.py follow the vendors'
documented rules, so the bench's cached-token figures mean what they say."""

from __future__ import annotations

import json
from typing import Any

from tests.ai.wire_servers.prompt_cache import PromptCache
from tests.ai.wire_servers.server import ReceivedRequest


def chars(text: str) -> int:
    return len(text)  # one "token" per character keeps the arithmetic visible


def received(body: dict[str, Any]) -> ReceivedRequest:
    raw = json.dumps(body).encode()
    return ReceivedRequest("POST", "/", {}, {}, raw, body)


def openai_body(*contents: str) -> dict[str, Any]:
    return {"messages": [{"role": "user", "content": content} for content in contents]}


def test_openai_caches_shared_prefixes_from_1024_tokens_in_steps_of_128() -> None:
    cache = PromptCache("openai", chars)
    first = cache.usage(received(openai_body("a" * 2_000, "round one")))
    second = cache.usage(received(openai_body("a" * 2_000, "round two")))
    short = PromptCache("openai", chars)
    short.usage(received(openai_body("b" * 500, "x")))
    again = short.usage(received(openai_body("b" * 500, "y")))
    assert first.cached_tokens == 0
    shared = len(
        '[]{"role":"user","content":"' + "a" * 2_000 + '"}{"role":"user","content":"round '
    )
    assert second.cached_tokens == shared - shared % 128 and second.cached_tokens >= 1_024
    assert again.cached_tokens == 0  # below the minimum


def anthropic_body(turns: list[tuple[str, bool]]) -> dict[str, Any]:
    system = [{"type": "text", "text": "s" * 1_100, "cache_control": {"type": "ephemeral"}}]
    content = []
    for text, breakpoint in turns:
        block: dict[str, Any] = {"type": "text", "text": text}
        if breakpoint:
            block["cache_control"] = {"type": "ephemeral"}
        content.append(block)
    return {"system": system, "messages": [{"role": "user", "content": content}]}


def test_anthropic_writes_up_to_breakpoints_and_reads_them_back_on_a_moved_breakpoint() -> None:
    cache = PromptCache("anthropic", chars)
    first = cache.usage(received(anthropic_body([("t1", True), ("ctx1", False)])))
    # Next round: the breakpoint moved one block on; the old one is found by the lookback.
    second = cache.usage(received(anthropic_body([("t1", False), ("t2", True), ("ctx2", False)])))
    assert first.cached_tokens == 0 and first.written_tokens > 1_100
    assert second.cached_tokens == first.written_tokens
    assert second.written_tokens == len('{"type":"text","text":"t2"}')
