"""The events a run streams. Names are the SSE `event:` names; `data` is JSON-ready."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any


class EventType(StrEnum):
    chunk = "chunk"  # {"text"}
    tool_call = "tool_call"  # {"id", "name", "arguments", "round"}
    tool_result = "tool_result"  # {"id", "name", "content", "is_error", "duration_ms", "round"}
    status = "status"  # {"status", "round"?, "message"?}
    final = "final"  # {"status", "text"}
    agent_summary = "agent_summary"  # {"rounds", "usage", "cost_chf", "duration_ms", "models"}
    error = "error"  # {"message"}


@dataclass(frozen=True, slots=True)
class AgentEvent:
    type: EventType
    data: dict[str, Any] = field(default_factory=dict)


EventSink = Callable[[AgentEvent], None]
# A sink that may also wait until the event is handled (a caller streaming it on first).
AnyEventSink = Callable[[AgentEvent], Awaitable[None] | None]


def discard_event(event: AgentEvent) -> None:
    """The sink of runs nobody listens to."""
