"""When the loop stops without an answer, as the Vercel AI SDK's `stopWhen`: a condition is
asked after every step; the first that holds ends the loop, and the caller learns which."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class StopCondition:
    name: str
    holds: Callable[[int], bool]  # the number of steps taken so far -> stop?


def step_count_is(limit: int) -> StopCondition:
    """Stops after `limit` steps (a step spent on a correction counts, too)."""
    return StopCondition(f"step_count_is({limit})", lambda steps: steps >= limit)
