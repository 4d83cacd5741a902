"""Events of one assistant turn, in the order the visitor sees them (SSE event names)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Literal

EventType = Literal["thinking", "chunk", "sources", "action", "final"]


@dataclass(frozen=True, slots=True)
class TurnEvent:
    type: EventType
    data: dict[str, Any] = field(default_factory=dict)


def thinking(text: str, stage: str, **extra: Any) -> TurnEvent:
    return TurnEvent("thinking", {"stage": stage, "text": text, **extra})


def chunk(text: str) -> TurnEvent:
    return TurnEvent("chunk", {"text": text})


def sources(items: list[dict[str, Any]]) -> TurnEvent:
    return TurnEvent("sources", {"sources": items})


def action(action_type: str, **data: Any) -> TurnEvent:
    return TurnEvent("action", {"type": action_type, **data})
