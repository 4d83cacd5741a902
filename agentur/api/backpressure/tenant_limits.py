"""Per-tenant limits on expensive work, so one mandate's burst cannot starve another's requests.

Each kind of expensive work (agent runs, gateway model calls, knowledge searches, visitor
messages) has a limit per mandate, and all of them together a limit per worker. A request
takes a slot before its work starts, waiting at most `admission_wait_seconds` for one; then it
is refused — 429 when its mandate's limit is full (the caller can slow down), 503 when the
worker's is (any caller would be refused) — both with `Retry-After`. Cheap requests (file
lists, reads) take no slot: they only ever wait for a database connection, which expensive work
holds only briefly.

The counts live in this process: with N workers behind a balancer a mandate may have up to
N × its limit going in all. Counting through the database instead would add a write to every
expensive request and outlive a worker that dies holding slots; a limit per worker bounds what
matters here — one worker's event loop, pool and memory.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any

from agentur.api.backpressure.settings import BackpressureSettings
from agentur.errors import BusyError, TooManyRequestsError


class WorkKind(StrEnum):
    agent_run = "agent run"
    model_call = "model call"
    search = "knowledge search"
    visitor_message = "visitor message"


@dataclass
class _Gate:
    """Slots of one kind for one mandate (or the worker's, for all): a semaphore that is
    dropped once no one holds or waits for it, so idle mandates cost nothing."""

    semaphore: asyncio.Semaphore
    users: int = 0


@dataclass
class Slot:
    """A taken slot; `release` gives it back (once, however often it is called)."""

    _release: Callable[[], None]
    released: bool = False
    # Work that outlives the request holds the slot until it ends (see `last_until`).
    task: asyncio.Task[Any] | None = None

    def release(self) -> None:
        if not self.released:
            self.released = True
            self._release()

    def last_until(self, task: asyncio.Task[Any]) -> None:
        """Held until `task` ends instead of until the request has been answered: an agent
        run goes on after a client that does not cancel it went away."""
        self.task = task
        task.add_done_callback(lambda _: self.release())


@dataclass
class TenantLimits:
    settings: BackpressureSettings
    _gates: dict[tuple[WorkKind | None, str], _Gate] = field(default_factory=dict)

    def limit(self, kind: WorkKind) -> int:
        return {
            WorkKind.agent_run: self.settings.tenant_max_agent_runs,
            WorkKind.model_call: self.settings.tenant_max_model_calls,
            WorkKind.search: self.settings.tenant_max_searches,
            WorkKind.visitor_message: self.settings.tenant_max_visitor_messages,
        }[kind]

    async def take(self, kind: WorkKind, mandate_id: str) -> Slot:
        """A slot for `kind` of work of `mandate_id`, or `TooManyRequestsError` (the mandate's
        limit) / `BusyError` (the worker's) after waiting up to `admission_wait_seconds`."""
        wait = self.settings.admission_wait_seconds
        retry = self.settings.retry_after_seconds
        tenant = (kind, mandate_id)
        if not await self._acquire(tenant, self.limit(kind), wait):
            raise TooManyRequestsError(
                f"your mandate has {self.limit(kind)} {kind}s going on this server, its limit "
                f"(AGENTUR_TENANT_MAX_{kind.name.upper()}S); retry when one has finished",
                retry,
            )
        worker = (None, "")
        if not await self._acquire(worker, self.settings.worker_max_expensive_requests, wait):
            self._release(tenant)
            raise BusyError(
                "this server is at its limit of concurrent expensive requests "
                "(AGENTUR_WORKER_MAX_EXPENSIVE_REQUESTS); retry shortly",
                retry,
            )

        def release() -> None:
            self._release(worker)
            self._release(tenant)

        return Slot(release)

    async def _acquire(self, key: tuple[WorkKind | None, str], limit: int, wait: float) -> bool:
        gate = self._gates.get(key)
        if gate is None:
            gate = self._gates[key] = _Gate(asyncio.Semaphore(limit))
        gate.users += 1
        try:
            async with asyncio.timeout(wait):
                await gate.semaphore.acquire()
        except TimeoutError:
            self._leave(key, gate)
            return False
        except BaseException:
            self._leave(key, gate)
            raise
        return True

    def _release(self, key: tuple[WorkKind | None, str]) -> None:
        gate = self._gates[key]
        gate.semaphore.release()
        self._leave(key, gate)

    def _leave(self, key: tuple[WorkKind | None, str], gate: _Gate) -> None:
        gate.users -= 1
        if gate.users == 0:
            del self._gates[key]
