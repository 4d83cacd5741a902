"""Runs whose worker died: the heartbeat keeps live runs alive; a run left `running` with an old
heartbeat ends as `failed` — at start, by the periodic sweep, or when its owner reads it — with
its trace, workflow message and budget holds settled, exactly once even with two recoverers."""

from __future__ import annotations

import asyncio
from datetime import timedelta

import httpx
import pytest
from sqlalchemy import func, select, update

from agentur.agent.config import AgentConfig
from agentur.agent.prepare_run import PreparedRun, prepare_run
from agentur.agent.recover_dead_runs import (
    WORKER_STOPPED,
    recover_dead_runs,
    start_run_recovery,
)
from agentur.agent.run_agent import execute_run
from agentur.agent.run_heartbeat import RunHeartbeat
from agentur.agent.settings import AgentSettings
from agentur.ai.database_gateway_store import DatabaseGatewayStore
from agentur.ai.mandate_ai_settings import update_mandate_ai_settings
from agentur.ai.neutralization.mapping_cipher import MappingCipher
from agentur.ai.service import AiService
from agentur.ai.settings import AiSettings
from agentur.context import utc_now
from agentur.runtime import Runtime
from agentur.storage.database import Database
from agentur.storage.models.agent import AgentRun, AgentTraceEntry
from agentur.storage.models.ai import AiLedgerEntry, AiReservation
from agentur.storage.models.workflows import WorkflowMessage
from tests.agent.support import deps
from tests.agent.test_cancel_api import HangingModel
from tests.api.test_backpressure import HOLD, GatedModel
from tests.conftest import Member, Tenants

# Small, so the tests wait fractions of a second; the timeout is several intervals as in use.
FAST = AgentSettings(agent_heartbeat_seconds=0.05, agent_heartbeat_timeout_seconds=0.3)


async def _stored_run(runtime: Runtime, member: Member) -> PreparedRun:
    """A run row as `prepare_run` leaves it: `running`, with its workflow and user message."""
    return await prepare_run(
        "plan my week",
        AgentConfig(),
        member.context,
        deps(AiService([], settings=AiSettings()), runtime=runtime),
    )


async def _age(database: Database, run_id: str, seconds: float = 3600) -> None:
    """As if its worker had stopped beating `seconds` ago."""
    async with database.transaction() as session:
        await session.execute(
            update(AgentRun)
            .where(AgentRun.id == run_id)
            .values(heartbeat_at=utc_now() - timedelta(seconds=seconds))
        )


async def _status(database: Database, run_id: str) -> str:
    async with database.session() as session:
        return (await session.scalar(select(AgentRun.status).where(AgentRun.id == run_id))) or ""


async def _until_failed(database: Database, run_id: str) -> None:
    for _ in range(500):  # 10 s at most
        if await _status(database, run_id) == "failed":
            return
        await asyncio.sleep(0.02)
    raise AssertionError(f"run {run_id} is still {await _status(database, run_id)}")


async def _hold(runtime: Runtime, member: Member, holder: str | None) -> str:
    async with runtime.database.transaction() as session:
        hold = AiReservation(
            mandate_id=member.mandate_id,
            amount_chf=0.5,
            holder=holder,
            expires_at=utc_now() + timedelta(hours=1),
        )
        session.add(hold)
        await session.flush()
        return hold.id


async def test_a_dead_run_is_recovered_at_start_like_a_failed_one(
    runtime: Runtime, tenants: Tenants, client: httpx.AsyncClient
) -> None:
    alice = await tenants.member()
    dead = await _stored_run(runtime, alice)
    live = await _stored_run(runtime, alice)  # beaten just now: not touched
    async with runtime.database.transaction() as session:
        session.add(
            AgentTraceEntry(
                run_id=dead.run_id,
                mandate_id=alice.mandate_id,
                sequence=1,
                kind="tool_call",
                round_index=1,
                data={"name": "list_files", "arguments": {"path": "/"}, "is_error": False},
            )
        )
    await _age(runtime.database, dead.run_id)
    its_hold = await _hold(runtime, alice, dead.run_id)
    other_hold = await _hold(runtime, alice, live.run_id)

    stop = start_run_recovery(runtime.database, AgentSettings())  # 15 s interval: one sweep
    try:
        await _until_failed(runtime.database, dead.run_id)
    finally:
        await stop()

    trace = (await client.get(f"/v1/agent/runs/{dead.run_id}", headers=alice.headers)).json()
    assert trace["status"] == "failed" and trace["error"] == WORKER_STOPPED
    assert trace["finished_at"] is not None and trace["rounds"] == 1
    assert WORKER_STOPPED in trace["final_text"] and "list_files" in trace["final_text"]
    last = trace["entries"][-1]
    assert (last["sequence"], last["kind"]) == (2, "status")
    assert last["data"]["status"] == "failed" and last["data"]["reason"] == WORKER_STOPPED
    async with runtime.database.session() as session:
        messages = list(
            await session.scalars(
                select(WorkflowMessage)
                .where(WorkflowMessage.workflow_id == dead.workflow_id)
                .order_by(WorkflowMessage.sequence)
            )
        )
        holds = set(await session.scalars(select(AiReservation.id)))
    assert [m.role for m in messages] == ["user", "assistant"]
    assert messages[-1].data == {"agent_run_id": dead.run_id, "status": "failed"}
    assert messages[-1].content == trace["final_text"]
    assert holds == {other_hold} and its_hold not in holds
    assert await _status(runtime.database, live.run_id) == "running"
    deleted = await client.delete(f"/v1/agent/runs/{dead.run_id}", headers=alice.headers)
    assert deleted.status_code == 409 and "already finished (failed)" in deleted.json()["detail"]


async def test_the_periodic_sweep_recovers_a_run_that_dies_later(
    runtime: Runtime, tenants: Tenants
) -> None:
    alice = await tenants.member()
    prepared = await _stored_run(runtime, alice)
    # Sweeps every 50 ms; a timeout no busy test machine reaches while the run is fresh.
    settings = AgentSettings(agent_heartbeat_seconds=0.05, agent_heartbeat_timeout_seconds=30)
    stop = start_run_recovery(runtime.database, settings)
    try:
        await asyncio.sleep(settings.agent_heartbeat_seconds * 3)  # the sweep at start passed
        assert await _status(runtime.database, prepared.run_id) == "running"
        await _age(runtime.database, prepared.run_id)
        await _until_failed(runtime.database, prepared.run_id)
    finally:
        await stop()


async def test_a_live_run_outlives_the_timeout_and_its_holds_name_it(
    runtime: Runtime, tenants: Tenants
) -> None:
    alice = await tenants.member()
    async with runtime.database.transaction() as session:
        await update_mandate_ai_settings(session, alice.mandate_id, {"monthly_limit_chf": 10.0})
    model = HangingModel()
    run_deps = runtime.agent_dependencies(FAST)
    run_deps.ai = AiService(
        [model], store=runtime.ai.store, settings=AiSettings()
    )  # holds in the database
    prepared = await prepare_run("wait", AgentConfig(), alice.context, run_deps)
    task = asyncio.create_task(execute_run(prepared, run_deps))
    try:
        await asyncio.wait_for(model.called.wait(), timeout=10)
        # Another worker's sweep (it knows nothing of this process's runs), started once the
        # run waits and has beaten: the first run of a test process holds the event loop up
        # for seconds while it imports the tools, and no heartbeat can be on time then.
        assert run_deps.heartbeat is not None
        assert await run_deps.heartbeat.beat() == {prepared.run_id}
        stop = start_run_recovery(runtime.database, FAST)
        # Three timeouts with sweeps every interval: only the heartbeat keeps it running.
        await asyncio.sleep(FAST.agent_heartbeat_timeout_seconds * 3)
        await stop()
        assert await _status(runtime.database, prepared.run_id) == "running"
        async with runtime.database.session() as session:
            beat = await session.scalar(
                select(AgentRun.heartbeat_at).where(AgentRun.id == prepared.run_id)
            )
            holders = list(await session.scalars(select(AiReservation.holder)))
        assert beat is not None and utc_now() - beat < timedelta(
            seconds=FAST.agent_heartbeat_timeout_seconds
        )
        assert holders == [prepared.run_id]
    finally:
        task.cancel()
        result = await task
    assert result.status.value == "cancelled"
    assert await _status(runtime.database, prepared.run_id) == "cancelled"


async def test_a_stalled_worker_does_not_overwrite_the_verdict(
    runtime: Runtime, tenants: Tenants
) -> None:
    """Declared dead while it was only stalled: its late finish leaves the run `failed`."""
    alice = await tenants.member()
    model = HangingModel()
    run_deps = deps(
        AiService([model], settings=AiSettings()), runtime=runtime
    )  # no heartbeat: as if stalled
    prepared = await prepare_run("wait", AgentConfig(), alice.context, run_deps)
    task = asyncio.create_task(execute_run(prepared, run_deps))
    await asyncio.wait_for(model.called.wait(), timeout=10)
    await _age(runtime.database, prepared.run_id)
    assert await recover_dead_runs(runtime.database, 60) == [prepared.run_id]
    task.cancel()
    await task
    async with runtime.database.session() as session:
        run = await session.scalar(select(AgentRun).where(AgentRun.id == prepared.run_id))
    assert run is not None and (run.status, run.error) == ("failed", WORKER_STOPPED)


async def test_two_recoverers_at_once_settle_each_run_once(
    runtime: Runtime, tenants: Tenants
) -> None:
    alice = await tenants.member()
    runs = [await _stored_run(runtime, alice) for _ in range(6)]
    for prepared in runs:
        await _age(runtime.database, prepared.run_id)
    other = Database(runtime.database.url)  # a second worker's connections
    try:
        first, second = await asyncio.gather(
            recover_dead_runs(runtime.database, 60), recover_dead_runs(other, 60)
        )
    finally:
        await other.dispose()
    assert sorted(first + second) == sorted(p.run_id for p in runs)
    assert not set(first) & set(second)
    async with runtime.database.session() as session:
        statuses = list(await session.scalars(select(AgentTraceEntry.run_id)))
        answers = list(
            await session.scalars(
                select(WorkflowMessage.workflow_id).where(WorkflowMessage.role == "assistant")
            )
        )
    assert sorted(statuses) == sorted(p.run_id for p in runs)
    assert sorted(answers) == sorted(p.workflow_id for p in runs)


async def test_reading_a_dead_run_recovers_it_without_waiting_for_the_sweep(
    runtime: Runtime, tenants: Tenants, client: httpx.AsyncClient
) -> None:
    alice = await tenants.member()
    prepared = await _stored_run(runtime, alice)
    fresh = await client.get(f"/v1/agent/runs/{prepared.run_id}", headers=alice.headers)
    assert fresh.json()["status"] == "running"
    await _age(runtime.database, prepared.run_id)
    bob = await tenants.member()  # someone else's dead run stays unseen and untouched
    assert (
        await client.get(f"/v1/agent/runs/{prepared.run_id}", headers=bob.headers)
    ).status_code == 404
    assert await _status(runtime.database, prepared.run_id) == "running"
    deleted = await client.delete(f"/v1/agent/runs/{prepared.run_id}", headers=alice.headers)
    assert deleted.status_code == 409 and "already finished (failed)" in deleted.json()["detail"]
    trace = (await client.get(f"/v1/agent/runs/{prepared.run_id}", headers=alice.headers)).json()
    assert (trace["status"], trace["error"]) == ("failed", WORKER_STOPPED)


def test_the_timeout_must_exceed_the_heartbeat() -> None:
    with pytest.raises(ValueError, match="longer than agent_heartbeat_seconds"):
        AgentSettings(agent_heartbeat_seconds=30, agent_heartbeat_timeout_seconds=30)


async def test_a_worker_never_takes_its_own_runs_for_dead(
    runtime: Runtime, tenants: Tenants
) -> None:
    """Its event loop held up past the timeout, a worker's beats are late: its own sweep
    still knows the runs going here are alive."""
    alice = await tenants.member()
    prepared = await _stored_run(runtime, alice)
    heartbeat = RunHeartbeat(runtime.database, 0.05)
    with heartbeat.keep_alive(prepared.run_id):
        await _age(runtime.database, prepared.run_id)
        here = heartbeat.running
        assert await recover_dead_runs(runtime.database, 60, alive_here=here) == []
        assert await _status(runtime.database, prepared.run_id) == "running"
    await asyncio.sleep(0.1)  # its beating task sees no runs left and ends
    await _age(runtime.database, prepared.run_id)
    assert await recover_dead_runs(runtime.database, 60) == [prepared.run_id]


def _billed(
    member: Member, workflow_id: str | None, tokens: int, **fields: object
) -> AiLedgerEntry:
    values: dict[str, object] = {
        "mandate_id": member.mandate_id,
        "user_id": member.user_id,
        "workflow_id": workflow_id,
        "operation": "agent",
        "model": "m",
        "provider": "p",
        "input_tokens": tokens,
        "output_tokens": tokens // 10,
        "cost_chf": tokens / 1000,
        "usd_to_chf": 0.9,
    }
    return AiLedgerEntry(**(values | fields))


async def test_a_dead_run_keeps_the_usage_its_calls_were_billed(
    runtime: Runtime, tenants: Tenants
) -> None:
    """Its worker kept the run's totals in memory; the ledger rows of its calls are what the
    recovered run reports (the scale-out bench found killed runs at 0 tokens with a ledger
    row each)."""
    alice = await tenants.member()
    dead = await _stored_run(runtime, alice)
    earlier = utc_now() - timedelta(hours=2)
    async with runtime.database.transaction() as session:
        session.add_all(
            [
                _billed(alice, dead.workflow_id, 300),
                _billed(alice, dead.workflow_id, 200),
                _billed(alice, dead.workflow_id, 5000, created_at=earlier),  # an older run's
                _billed(alice, dead.workflow_id, 7000, operation="embedding"),
                _billed(alice, None, 9000),
            ]
        )
    await _age(runtime.database, dead.run_id)

    assert await recover_dead_runs(runtime.database, 60) == [dead.run_id]

    async with runtime.database.session() as session:
        run = await session.get(AgentRun, dead.run_id)
    assert run is not None
    assert (run.input_tokens, run.output_tokens) == (500, 50)
    assert run.cost_chf == pytest.approx(0.5)


async def test_a_stalled_run_declared_dead_still_reports_the_calls_it_was_billed(
    runtime: Runtime, tenants: Tenants
) -> None:
    """Declared dead while its model call was still under way (a stalled worker): the call is
    billed after the sweep summed the ledger. The late finish keeps the `failed` verdict but
    writes the run's usage, so it matches the ledger rows of its calls."""
    alice = await tenants.member()
    model = GatedModel()
    settings = AiSettings(usd_to_chf=0.9)
    billing = DatabaseGatewayStore(runtime.database, settings, MappingCipher.generated())
    ai = AiService([model], settings=settings, store=billing)  # ledger rows in the database
    run_deps = deps(ai, runtime=runtime)  # no heartbeat: as if stalled
    prepared = await prepare_run(f"{HOLD} now", AgentConfig(), alice.context, run_deps)
    task = asyncio.create_task(execute_run(prepared, run_deps))
    for _ in range(500):
        if model.held:
            break
        await asyncio.sleep(0.01)
    await _age(runtime.database, prepared.run_id)
    assert await recover_dead_runs(runtime.database, 60) == [prepared.run_id]
    model.release()
    result = await task
    async with runtime.database.session() as session:
        run = await session.get(AgentRun, prepared.run_id)
        billed = (
            await session.execute(
                select(
                    func.sum(AiLedgerEntry.input_tokens), func.sum(AiLedgerEntry.output_tokens)
                ).where(AiLedgerEntry.workflow_id == prepared.workflow_id)
            )
        ).one()
    assert run is not None and (run.status, run.error) == ("failed", WORKER_STOPPED)
    assert billed[0] and result.usage.input_tokens == billed[0]
    assert (run.input_tokens, run.output_tokens) == tuple(billed)
