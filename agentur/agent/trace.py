"""The run trace: rounds, model calls, tool calls, summaries, toolbox activations and
status transitions — kept in memory during the run and persisted once per round.

Tool arguments and results are redacted before they are kept. A failure to persist is logged
and the run goes on; the trace is an audit aid, not a reason to lose the user's work.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from sqlalchemy import select, update

from agentur.context import RequestContext, utc_now
from agentur.errors import NotFoundError
from agentur.storage.database import Database
from agentur.storage.models.agent import AgentRun, AgentTraceEntry

logger = logging.getLogger(__name__)


class TraceKind:
    status = "status"
    round = "round"
    model_call = "model_call"
    tool_call = "tool_call"
    summary = "summary"
    toolbox = "toolbox"
    hook_failure = "hook_failure"
    text_tool_calls = "text_tool_calls"
    answer_rejected = "answer_rejected"


@dataclass(frozen=True, slots=True)
class TraceEntry:
    sequence: int
    kind: str
    data: dict[str, Any]
    round_index: int | None = None
    duration_ms: float | None = None
    at: datetime = field(default_factory=utc_now)


@dataclass(frozen=True, slots=True)
class RunFinish:
    status: str
    final_text: str
    rounds: int
    cost_chf: float
    input_tokens: int
    output_tokens: int
    models: list[str]
    duration_ms: float
    error: str | None = None


class TraceStore:
    """Persistence of runs and their entries; every read filters by tenant and owner."""

    def __init__(self, database: Database) -> None:
        self.database = database

    async def create_run(
        self,
        run_id: str,
        context: RequestContext,
        *,
        prompt: str,
        config: dict[str, Any],
        workflow_id: str | None,
    ) -> None:
        async with self.database.transaction() as session:
            session.add(
                AgentRun(
                    id=run_id,
                    mandate_id=context.mandate_id,
                    user_id=context.user_id,
                    workflow_id=workflow_id,
                    prompt=prompt,
                    config=config,
                    status="running",
                    models=[],
                    heartbeat_at=utc_now(),
                )
            )

    async def append(self, run_id: str, mandate_id: str, entries: list[TraceEntry]) -> None:
        if not entries:
            return
        async with self.database.transaction() as session:
            session.add_all(
                AgentTraceEntry(
                    run_id=run_id,
                    mandate_id=mandate_id,
                    sequence=entry.sequence,
                    kind=entry.kind,
                    round_index=entry.round_index,
                    data=entry.data,
                    duration_ms=entry.duration_ms,
                    created_at=entry.at,
                    updated_at=entry.at,
                )
                for entry in entries
            )

    async def finish(self, run_id: str, mandate_id: str, finish: RunFinish) -> None:
        async with self.database.transaction() as session:
            ended = await session.execute(
                update(AgentRun)
                .where(
                    AgentRun.id == run_id,
                    AgentRun.mandate_id == mandate_id,
                    AgentRun.status == "running",
                )
                .values(
                    status=finish.status,
                    final_text=finish.final_text,
                    rounds=finish.rounds,
                    cost_chf=finish.cost_chf,
                    input_tokens=finish.input_tokens,
                    output_tokens=finish.output_tokens,
                    models=finish.models,
                    duration_ms=finish.duration_ms,
                    error=finish.error,
                    finished_at=utc_now(),
                )
            )
            if not ended.rowcount:  # type: ignore[attr-defined]
                # Another worker declared the run dead (this one stalled) and summed its ledger
                # rows then: the verdict stays, the usage becomes what every call was billed,
                # including those that ended after the verdict.
                await session.execute(
                    update(AgentRun)
                    .where(AgentRun.id == run_id, AgentRun.mandate_id == mandate_id)
                    .values(
                        cost_chf=finish.cost_chf,
                        input_tokens=finish.input_tokens,
                        output_tokens=finish.output_tokens,
                        models=finish.models,
                    )
                )

    async def get(
        self, run_id: str, context: RequestContext
    ) -> tuple[AgentRun, list[AgentTraceEntry]]:
        async with self.database.session() as session:
            run = (
                await session.execute(
                    select(AgentRun).where(
                        AgentRun.id == run_id,
                        AgentRun.mandate_id == context.mandate_id,
                        AgentRun.user_id == context.user_id,
                    )
                )
            ).scalar_one_or_none()
            if run is None:
                raise NotFoundError(f"agent run {run_id} not found")
            entries = (
                await session.execute(
                    select(AgentTraceEntry)
                    .where(
                        AgentTraceEntry.run_id == run.id,
                        AgentTraceEntry.mandate_id == context.mandate_id,
                    )
                    .order_by(AgentTraceEntry.sequence)
                )
            ).scalars()
            return run, list(entries)


class TraceRecorder:
    """Collects entries; `flush` writes what is new (once per round and at the end)."""

    def __init__(self, run_id: str, mandate_id: str, store: TraceStore | None) -> None:
        self.run_id = run_id
        self.mandate_id = mandate_id
        self.store = store
        self.entries: list[TraceEntry] = []
        self._flushed = 0

    def add(
        self,
        kind: str,
        data: dict[str, Any],
        *,
        round_index: int | None = None,
        duration_ms: float | None = None,
    ) -> None:
        self.entries.append(TraceEntry(len(self.entries) + 1, kind, data, round_index, duration_ms))

    async def flush(self) -> None:
        if self.store is None:
            return
        pending = self.entries[self._flushed :]
        try:
            await self.store.append(self.run_id, self.mandate_id, pending)
            self._flushed += len(pending)
        except Exception:
            logger.exception("could not persist the trace of agent run %s", self.run_id)

    async def finish(self, finish: RunFinish) -> None:
        await self.flush()
        if self.store is None:
            return
        try:
            await self.store.finish(self.run_id, self.mandate_id, finish)
        except Exception:
            logger.exception("could not persist the end of agent run %s", self.run_id)
