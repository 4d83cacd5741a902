"""Runs in progress in this process: each on its own task, its events on a queue, so a caller
can stream them, wait for the result, or cancel the run (DELETE, client disconnect).

Workers are stateless: a DELETE may reach a worker other than the one running the run. That
worker announces the cancellation on a broadcast every worker listens to (PostgreSQL
LISTEN/NOTIFY, see `Broadcast`), and the worker that has the run cancels it. On SQLite there is
one process and no broadcast."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass, field
from typing import Protocol

from agentur.agent.dependencies import AgentDependencies, AgentResult
from agentur.agent.prepare_run import PreparedRun
from agentur.agent.run_agent import execute_run
from agentur.context import RequestContext
from agentur.tool_loop.events import AgentEvent


@dataclass
class AgentRunHandle:
    prepared: PreparedRun
    task: asyncio.Task[AgentResult] | None = None
    queue: asyncio.Queue[AgentEvent | None] = field(default_factory=asyncio.Queue)

    @property
    def run_id(self) -> str:
        return self.prepared.run_id

    def emit(self, event: AgentEvent) -> None:
        self.queue.put_nowait(event)

    async def events(self) -> AsyncIterator[AgentEvent]:
        """Every event of the run, ending after the last one (agent_summary)."""
        while (event := await self.queue.get()) is not None:
            yield event

    async def result(self) -> AgentResult:
        assert self.task is not None
        # Shielded: a waiter that goes away does not cancel the run by accident.
        return await asyncio.shield(self.task)

    def cancel(self) -> bool:
        if self.task is None or self.task.done():
            return False
        self.task.cancel()
        return True


class Broadcast(Protocol):
    """A message to every worker (this one included)."""

    async def publish(self, payload: str) -> None: ...

    async def subscribe(self, callback: Callable[[str], None]) -> None: ...


class ActiveRuns:
    def __init__(self, cancellations: Broadcast | None = None) -> None:
        self._runs: dict[str, AgentRunHandle] = {}
        self._cancellations = cancellations
        self._listening = False
        self._subscribing = asyncio.Lock()

    async def listen(self) -> None:
        """Start receiving cancellations from other workers (before runs start here)."""
        if self._cancellations is None or self._listening:
            return
        async with self._subscribing:
            if not self._listening:
                await self._cancellations.subscribe(self._cancel_here)
                self._listening = True

    def _cancel_here(self, run_id: str) -> None:
        # The sender checked that the run is the caller's; an unknown id is another worker's.
        handle = self._runs.get(run_id)
        if handle is not None:
            handle.cancel()

    async def cancel_elsewhere(self, run_id: str) -> bool:
        """Ask every worker to cancel `run_id`; False when there are no other workers."""
        if self._cancellations is None:
            return False
        await self._cancellations.publish(run_id)
        return True

    def start(self, prepared: PreparedRun, deps: AgentDependencies) -> AgentRunHandle:
        handle = AgentRunHandle(prepared)

        def done(_: asyncio.Task[AgentResult]) -> None:
            # A done-callback runs even for a task cancelled before its first step.
            handle.queue.put_nowait(None)
            self._runs.pop(prepared.run_id, None)

        self._runs[prepared.run_id] = handle
        handle.task = asyncio.create_task(
            execute_run(prepared, deps, handle.emit), name=f"agent-run-{prepared.run_id}"
        )
        handle.task.add_done_callback(done)
        return handle

    def get(self, run_id: str, context: RequestContext) -> AgentRunHandle | None:
        """The caller's own run; anyone else's is not there."""
        handle = self._runs.get(run_id)
        if handle is None:
            return None
        owner = handle.prepared.context
        if owner.mandate_id != context.mandate_id or owner.user_id != context.user_id:
            return None
        return handle

    def __len__(self) -> int:
        return len(self._runs)
