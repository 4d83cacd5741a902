"""The SSE parser on the edge cases vendors produce."""

from __future__ import annotations

from collections.abc import AsyncIterator

from agentur.ai.providers.sse import SseEvent, iter_sse


async def lines(*items: str) -> AsyncIterator[str]:
    for item in items:
        yield item


async def test_events_names_multiline_data_comments_and_missing_final_blank() -> None:
    source = lines(
        ": keep-alive",
        "event: message_start",
        'data: {"a": 1}\r',
        "",
        "",
        "data:first",
        "data: second",
        "",
        "event: ping",
        "",  # an event without data is not dispatched
        "data: [DONE]",
    )
    events = [event async for event in iter_sse(source)]
    assert events == [
        SseEvent("message_start", '{"a": 1}'),
        SseEvent("message", "first\nsecond"),
        SseEvent("message", "[DONE]"),
    ]
