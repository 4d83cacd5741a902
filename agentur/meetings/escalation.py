"""At most one agent run per meeting at a time. A task that arrives while one runs waits and
is merged with any other waiting task into the next run; a task equal to the running one or to
a waiting one is dropped — the same question is never researched twice at once."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from enum import StrEnum

logger = logging.getLogger(__name__)


class Submitted(StrEnum):
    started = "started"
    queued = "queued"
    merged = "merged"  # the same task runs or waits already


@dataclass(frozen=True, slots=True)
class Escalation:
    brief: str
    source: str  # "fast_path" or "directive"


def merged(waiting: list[Escalation]) -> Escalation:
    if len(waiting) == 1:
        return waiting[0]
    tasks = "\n".join(f"{n}. {item.brief}" for n, item in enumerate(waiting, start=1))
    sources = sorted({item.source for item in waiting})
    return Escalation(f"Handle these tasks from the meeting:\n{tasks}", "+".join(sources))


def _same(a: str, b: str) -> bool:
    return " ".join(a.lower().split()) == " ".join(b.lower().split())


@dataclass
class EscalationQueue:
    run: Callable[[Escalation], Awaitable[None]]
    _running: Escalation | None = None
    _task: asyncio.Task[None] | None = None
    _waiting: list[Escalation] = field(default_factory=list)
    _done: asyncio.Event = field(default_factory=asyncio.Event)

    def __post_init__(self) -> None:
        self._done.set()

    @property
    def busy(self) -> bool:
        return self._task is not None

    def submit(self, escalation: Escalation) -> Submitted:
        known = ([self._running] if self._running else []) + self._waiting
        if any(_same(item.brief, escalation.brief) for item in known):
            return Submitted.merged
        if self._task is not None:
            self._waiting.append(escalation)
            return Submitted.queued
        self._start(escalation)
        return Submitted.started

    def _start(self, escalation: Escalation) -> None:
        self._running = escalation
        self._done.clear()
        # Inherits the session worker's context (its request context, no request's tag).
        self._task = asyncio.create_task(self._run_then_next(escalation), name="meeting-agent")

    async def _run_then_next(self, escalation: Escalation) -> None:
        try:
            await self.run(escalation)
        except Exception:  # the meeting goes on; the next task still runs
            logger.exception("meeting agent run failed: %s", escalation.brief[:80])
        finally:
            self._task, self._running = None, None
            if self._waiting:
                waiting, self._waiting = self._waiting, []
                self._start(merged(waiting))
            else:
                self._done.set()

    async def idle(self) -> None:
        """Returns once no run is going and none is waiting."""
        await self._done.wait()

    async def cancel(self) -> None:
        self._waiting.clear()
        task = self._task
        if task is not None:
            task.cancel()
            await asyncio.gather(task, return_exceptions=True)
        self._done.set()
