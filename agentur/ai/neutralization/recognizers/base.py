"""What a recognizer is: an entity type, a priority for overlaps, and a function that finds
spans in text. Adding a recognizer is one small module plus one line in `registry.py`."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class Span:
    start: int
    end: int
    # Normalized form, so "+41 44 668 18 00" and "044 668 18 00" share one placeholder.
    key: str | None = None


@dataclass(frozen=True, slots=True)
class Recognizer:
    entity_type: str  # also the placeholder prefix: EMAIL -> [EMAIL_1]
    find: Callable[[str], Iterable[Span]]
    # Higher wins when spans overlap (a checksummed AHV number beats a phone-number guess).
    priority: int = 50
