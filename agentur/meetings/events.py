"""What the assistant says in a session, as numbered events for its listeners (SSE).

The hub lives in the worker that holds the session: events are fanned out in-process. It keeps
the last events so a listener that (re)connects with `Last-Event-ID` misses nothing recent, and
it closes once the session ends (listeners then get `ended` and their stream finishes)."""

from __future__ import annotations

import asyncio
from collections import deque
from collections.abc import AsyncIterator
from dataclasses import dataclass
from enum import StrEnum
from typing import Any


class MeetingEventType(StrEnum):
    reply = "reply"  # text the assistant says (fast path or agent)
    speech = "speech"  # a link to the synthesized audio of a reply
    agent_started = "agent_started"
    agent_final = "agent_final"
    error = "error"
    ended = "ended"  # the session ended; the stream finishes after it


@dataclass(frozen=True, slots=True)
class MeetingEvent:
    sequence: int
    type: MeetingEventType
    data: dict[str, Any]


class EventHub:
    def __init__(self, keep: int) -> None:
        self._keep = keep
        self._recent: deque[MeetingEvent] = deque(maxlen=keep)
        self._listeners: set[asyncio.Queue[MeetingEvent | None]] = set()
        self._sequence = 0
        self.closed = False

    def publish(self, kind: MeetingEventType, data: dict[str, Any]) -> MeetingEvent:
        self._sequence += 1
        event = MeetingEvent(self._sequence, kind, data)
        self._recent.append(event)
        for queue in list(self._listeners):
            if queue.qsize() >= self._keep:
                # A listener this far behind is dropped rather than slowing the meeting down
                # (its stream ends; it can reconnect with Last-Event-ID).
                self._listeners.discard(queue)
                queue.put_nowait(None)
            else:
                queue.put_nowait(event)
        if kind is MeetingEventType.ended:
            self.close()
        return event

    def recent(self) -> list[MeetingEvent]:
        return list(self._recent)

    def close(self) -> None:
        self.closed = True
        for queue in self._listeners:
            queue.put_nowait(None)  # there is always room: listeners are dropped at `keep`
        self._listeners.clear()

    async def listen(self, after: int = 0) -> AsyncIterator[MeetingEvent]:
        """The kept events after `after`, then new ones until the session ends."""
        queue: asyncio.Queue[MeetingEvent | None] = asyncio.Queue(self._keep + 1)
        backlog = [event for event in self._recent if event.sequence > after]
        if not self.closed:
            self._listeners.add(queue)
        try:
            for event in backlog:
                yield event
            last = backlog[-1].sequence if backlog else after
            while not self.closed or not queue.empty():
                event = await queue.get()
                if event is None:
                    return
                if event.sequence > last:
                    yield event
        finally:
            self._listeners.discard(queue)
