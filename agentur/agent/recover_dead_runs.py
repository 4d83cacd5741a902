"""Runs whose worker died (killed, out of memory, redeployed) end as `failed` instead of staying
`running` forever: any worker, at start and every heartbeat interval, claims the running runs
whose heartbeat is older than the timeout, records the failure as a finished run would (trace
entry, final text, workflow message) and releases the budget holds the run made.

The claim is one conditional UPDATE (`status = 'running' AND heartbeat_at < cutoff`) over the
rows it could lock: when two workers sweep at once, each run goes to exactly one of them
(PostgreSQL: the other skips rows already locked, and re-checks the condition; SQLite has one
writer)."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable, Sequence
from datetime import datetime, timedelta

from sqlalchemy import Row, func, select, update
from sqlalchemy.ext.asyncio import AsyncSession

from agentur.agent.dependencies import RunStatus
from agentur.agent.progress_summary import Step, progress_summary
from agentur.agent.run_heartbeat import WORKER_STOPPED, RunHeartbeat
from agentur.agent.settings import AgentSettings
from agentur.agent.trace import TraceKind
from agentur.ai.billing.holder import release_holds
from agentur.ai.operation_types import OperationType
from agentur.context import RequestContext, Role, utc_now
from agentur.storage.database import Database
from agentur.storage.models.agent import AgentRun, AgentTraceEntry
from agentur.storage.models.ai import AiLedgerEntry
from agentur.workflows.service import WorkflowService

logger = logging.getLogger(__name__)

# Runs settled per transaction: many dead at once (a whole cluster restarted) are not one
# long transaction holding locks.
CLAIM_BATCH = 100


def heartbeat_stopped(run: AgentRun, timeout_seconds: float) -> bool:
    """A run read as `running` whose worker has not beaten within the timeout."""
    return (
        run.status == RunStatus.running.value
        and run.heartbeat_at is not None
        and run.heartbeat_at < utc_now() - timedelta(seconds=timeout_seconds)
    )


async def recover_dead_runs(
    database: Database,
    timeout_seconds: float,
    *,
    run_ids: Sequence[str] | None = None,
    alive_here: frozenset[str] = frozenset(),
) -> list[str]:
    """Fail the running runs (of `run_ids`, or all) whose heartbeat is older than
    `timeout_seconds`; returns the ids this call recovered. `alive_here` are the caller's own
    runs: after its event loop was held up past the timeout its beats are late, yet its runs
    are not dead."""
    now = utc_now()
    conditions = [
        AgentRun.status == RunStatus.running.value,
        AgentRun.heartbeat_at < now - timedelta(seconds=timeout_seconds),
    ]
    if run_ids is not None:
        conditions.append(AgentRun.id.in_(run_ids))
    if alive_here:
        conditions.append(AgentRun.id.not_in(alive_here))
    # SKIP LOCKED (PostgreSQL; SQLite has one writer and no such clause): a run another
    # recoverer is settling is its; waiting for it could deadlock two multi-row claims.
    dead = select(AgentRun.id).where(*conditions).limit(CLAIM_BATCH)
    claim = (
        update(AgentRun)
        .where(AgentRun.id.in_(dead.with_for_update(skip_locked=True).scalar_subquery()))
        .where(*conditions)
        .values(status=RunStatus.failed.value, error=WORKER_STOPPED, finished_at=now)
        .returning(
            AgentRun.id,
            AgentRun.mandate_id,
            AgentRun.user_id,
            AgentRun.workflow_id,
            AgentRun.created_at,
        )
    )
    recovered: list[str] = []
    while True:
        async with database.transaction() as session:
            claimed = (await session.execute(claim)).all()
            for run in claimed:
                await _record_failure(session, run, now)
            await release_holds(session, [run.id for run in claimed])
        for run in claimed:
            logger.warning("agent run %s failed: %s", run.id, WORKER_STOPPED)
        recovered.extend(run.id for run in claimed)
        if len(claimed) < CLAIM_BATCH:
            return recovered


async def _record_failure(session: AsyncSession, run: Row, now: datetime) -> None:
    """What `_finish` would have written: the status entry, the final text, the answer."""
    entries = list(
        await session.scalars(
            select(AgentTraceEntry)
            .where(AgentTraceEntry.run_id == run.id, AgentTraceEntry.mandate_id == run.mandate_id)
            .order_by(AgentTraceEntry.sequence)
        )
    )
    rounds = max((entry.round_index or 0 for entry in entries), default=0)
    steps = [
        Step(entry.round_index or 0, data["name"], data["arguments"], bool(data["is_error"]))
        for entry in entries
        if entry.kind == TraceKind.tool_call and (data := entry.data)
    ]
    text = progress_summary(WORKER_STOPPED, rounds, steps, "")
    status = {"status": RunStatus.failed.value, "round": rounds, "reason": WORKER_STOPPED}
    session.add(
        AgentTraceEntry(
            run_id=run.id,
            mandate_id=run.mandate_id,
            sequence=(entries[-1].sequence if entries else 0) + 1,
            kind=TraceKind.status,
            round_index=rounds or None,
            data=status,
            created_at=now,
            updated_at=now,
        )
    )
    await session.execute(
        update(AgentRun)
        .where(AgentRun.id == run.id)
        .values(rounds=rounds, final_text=text, **await _billed_usage(session, run))
    )
    if run.workflow_id is not None:
        owner = RequestContext(user_id=run.user_id, mandate_id=run.mandate_id, role=Role.member)
        await WorkflowService(session, owner).append(
            run.workflow_id,
            "assistant",
            text,
            {"agent_run_id": run.id, "status": RunStatus.failed.value},
        )


async def _billed_usage(session: AsyncSession, run: Row) -> dict[str, float]:
    """What the run's model calls were billed: its worker kept the running totals in memory
    and died before writing them, while each call's ledger row is written when the call ends.
    The run's calls are its workflow's agent calls from its start to the next run's start in
    that workflow (two runs going at once in one workflow cannot be told apart)."""
    if run.workflow_id is None:
        return {}
    later = AiLedgerEntry.created_at >= run.created_at
    next_start = await session.scalar(
        select(func.min(AgentRun.created_at)).where(
            AgentRun.mandate_id == run.mandate_id,
            AgentRun.workflow_id == run.workflow_id,
            AgentRun.created_at > run.created_at,
        )
    )
    if next_start is not None:
        later &= AiLedgerEntry.created_at < next_start
    billed = (
        await session.execute(
            select(
                func.coalesce(func.sum(AiLedgerEntry.input_tokens), 0),
                func.coalesce(func.sum(AiLedgerEntry.output_tokens), 0),
                func.coalesce(func.sum(AiLedgerEntry.cost_chf), 0.0),
            ).where(
                AiLedgerEntry.mandate_id == run.mandate_id,
                AiLedgerEntry.workflow_id == run.workflow_id,
                AiLedgerEntry.operation == OperationType.agent.value,
                later,
            )
        )
    ).one()
    return {"input_tokens": billed[0], "output_tokens": billed[1], "cost_chf": billed[2]}


def start_run_recovery(
    database: Database, settings: AgentSettings, heartbeat: RunHeartbeat | None = None
) -> Callable[[], Awaitable[None]]:
    """Sweep now and every heartbeat interval until the returned stopper is awaited; the runs
    `heartbeat` beats for (this worker's) are never taken for dead."""

    async def sweep_forever() -> None:
        while True:
            alive_here = heartbeat.running if heartbeat is not None else frozenset()
            try:
                await recover_dead_runs(
                    database, settings.agent_heartbeat_timeout_seconds, alive_here=alive_here
                )
            except Exception:  # the database is away; the next sweep may get through
                logger.exception("could not look for agent runs whose worker died")
            await asyncio.sleep(settings.agent_heartbeat_seconds)

    task = asyncio.create_task(sweep_forever(), name="agent-run-recovery")

    async def stop() -> None:
        task.cancel()
        await asyncio.gather(task, return_exceptions=True)

    return stop
