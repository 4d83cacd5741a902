"""Server-sent events: turn a stream of text lines into `(event, data)` records.

Follows the WHATWG rules the vendors rely on: `data:` lines of one event are joined with
newlines, a blank line ends the event, lines starting with `:` are comments (keep-alives).
"""

from __future__ import annotations

from collections.abc import AsyncIterable, AsyncIterator
from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class SseEvent:
    event: str  # "message" when the server names none
    data: str


def _field(line: str) -> tuple[str, str]:
    name, _, value = line.partition(":")
    return name, value[1:] if value.startswith(" ") else value


async def iter_sse(lines: AsyncIterable[str]) -> AsyncIterator[SseEvent]:
    event = ""
    data: list[str] = []
    async for raw in lines:
        line = raw.rstrip("\r\n")
        if not line:
            if data:
                yield SseEvent(event or "message", "\n".join(data))
            event, data = "", []
            continue
        if line.startswith(":"):
            continue
        name, value = _field(line)
        if name == "data":
            data.append(value)
        elif name == "event":
            event = value
    # A stream may end without the final blank line; the last event still counts.
    if data:
        yield SseEvent(event or "message", "\n".join(data))
