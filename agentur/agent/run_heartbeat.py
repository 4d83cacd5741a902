"""The heartbeat of this worker's runs: while any run is going here, one UPDATE per interval
refreshes `heartbeat_at` of all of them, so other workers can tell a live run from one whose
worker died (see `recover_dead_runs`).

One per process and database (the runtime keeps it): every run this process executes — API,
OpenAI-compatible endpoint, `agentur ask` — registers here. The beating task runs only while
there are runs, so an idle worker writes nothing and no task outlives the last run."""

from __future__ import annotations

import asyncio
import contextvars
import logging
from collections.abc import Iterator
from contextlib import contextmanager

from sqlalchemy import select, update

from agentur.context import utc_now
from agentur.storage.database import Database
from agentur.storage.models.agent import AgentRun

logger = logging.getLogger(__name__)

# The error of a run another worker took for dead (written by `recover_dead_runs`).
WORKER_STOPPED = "the worker running it stopped"


class RunHeartbeat:
    def __init__(self, database: Database, interval_seconds: float) -> None:
        self.database = database
        self.interval_seconds = interval_seconds
        self._runs: set[str] = set()
        self._task: asyncio.Task[None] | None = None

    @property
    def running(self) -> frozenset[str]:
        """The runs going in this process (alive, whatever their stored heartbeat says)."""
        return frozenset(self._runs)

    @contextmanager
    def keep_alive(self, run_id: str) -> Iterator[None]:
        """Beat for `run_id` while the block runs (its row was created with a fresh beat)."""
        self._runs.add(run_id)
        if self._task is None or self._task.done():
            # A fresh context: the task serves every run, not the one that happened to start it.
            self._task = asyncio.create_task(
                self._beat_while_running(), name="run-heartbeat", context=contextvars.Context()
            )
        try:
            yield
        finally:
            self._runs.discard(run_id)

    async def _beat_while_running(self) -> None:
        # Background work: a beat waits out a burst of requests for a connection (a beat that
        # failed after the request timeout let other workers take live runs for dead).
        with self.database.background_work():
            await self._beat_loop()

    async def _beat_loop(self) -> None:
        while self._runs:
            await asyncio.sleep(self.interval_seconds)
            if not self._runs:
                return
            beating = set(self._runs)
            try:
                alive = await self.beat()
            except Exception:  # the database is away; the next beat may get through
                logger.exception("could not refresh the heartbeat of %d run(s)", len(beating))
                continue
            missing = (beating - alive) & self._runs  # still going here, yet not running
            if not missing:
                continue
            try:
                # Not those that just ended here (their row is written before they leave)
                taken = await self.taken_for_dead(missing)
            except Exception:
                logger.exception("could not read the state of %d run(s)", len(missing))
                continue
            for run_id in taken:
                # This worker was stalled past the timeout and another one recovered the run.
                logger.warning("agent run %s was declared dead by another worker", run_id)

    async def beat(self) -> set[str]:
        """Refresh every run going here; returns those still `running` in the database."""
        run_ids = list(self._runs)
        if not run_ids:
            return set()
        async with self.database.transaction() as session:
            alive = await session.scalars(
                update(AgentRun)
                # A run another worker already declared dead stays so (no flip back).
                .where(AgentRun.id.in_(run_ids), AgentRun.status == "running")
                .values(heartbeat_at=utc_now())
                .returning(AgentRun.id)
            )
            return set(alive)

    async def taken_for_dead(self, run_ids: set[str]) -> set[str]:
        """Those of `run_ids` that a worker recovered as dead."""
        async with self.database.session() as session:
            taken = await session.scalars(
                select(AgentRun.id).where(
                    AgentRun.id.in_(run_ids),
                    AgentRun.status == "failed",
                    AgentRun.error == WORKER_STOPPED,
                )
            )
            return set(taken)
