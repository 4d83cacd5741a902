"""Runs in progress in this process: each on its own task, its events on a queue, so a caller
can stream them, wait for the result, or cancel the run (DELETE, client disconnect)."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from dataclasses import dataclass, field

from agentur.agent.dependencies import AgentDependencies, AgentResult
from agentur.agent.events import AgentEvent
from agentur.agent.prepare_run import PreparedRun
from agentur.agent.run_agent import execute_run
from agentur.context import RequestContext


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


class ActiveRuns:
    def __init__(self) -> None:
        self._runs: dict[str, AgentRunHandle] = {}

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
