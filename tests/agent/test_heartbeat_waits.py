"""The run heartbeat is background work: when every pooled connection is taken for longer than
a request may wait, its beat waits for one instead of failing (a failed beat let other workers
take live runs for dead)."""

from __future__ import annotations

import asyncio
import logging
from datetime import timedelta

import pytest
from sqlalchemy import select, text, update

from agentur.agent.run_heartbeat import WORKER_STOPPED, RunHeartbeat
from agentur.context import utc_now
from agentur.runtime import Runtime
from agentur.storage.database import Database, PoolSizing
from agentur.storage.models.agent import AgentRun
from tests.agent.test_dead_worker_recovery import _stored_run
from tests.conftest import Tenants


async def test_a_beat_waits_for_a_connection_past_the_request_timeout(
    runtime: Runtime, tenants: Tenants, caplog: pytest.LogCaptureFixture
) -> None:
    alice = await tenants.member()
    run = await _stored_run(runtime, alice)
    old = utc_now() - timedelta(hours=1)
    async with runtime.database.transaction() as session:
        await session.execute(update(AgentRun).values(heartbeat_at=old))
    # One connection, requests wait 0.2 s; the beat (background work) up to 10 s.
    small = Database(runtime.database.url, PoolSizing(1, 0, 0.2, background_wait_seconds=10))
    try:
        heartbeat = RunHeartbeat(small, interval_seconds=0.05)
        async with small.engine.connect() as held:
            await held.execute(text("SELECT 1"))  # the pool's only connection
            with caplog.at_level(logging.ERROR), heartbeat.keep_alive(run.run_id):
                await asyncio.sleep(0.8)  # past several request timeouts
                await held.close()  # the connection comes free
                await asyncio.sleep(0.5)
        async with runtime.database.session() as session:
            beat = await session.scalar(
                select(AgentRun.heartbeat_at).where(AgentRun.id == run.run_id)
            )
    finally:
        await small.dispose()
    assert beat is not None and beat.replace(tzinfo=None) > old.replace(tzinfo=None)
    assert not [r for r in caplog.records if "could not refresh the heartbeat" in r.message]


async def test_only_a_run_taken_for_dead_is_reported_so(
    runtime: Runtime, tenants: Tenants, caplog: pytest.LogCaptureFixture
) -> None:
    """A run that has just ended here (its row written, its block not yet left) is no run
    another worker declared dead; one that a recovery failed is."""
    alice = await tenants.member()
    ended = await _stored_run(runtime, alice)
    taken = await _stored_run(runtime, alice)
    async with runtime.database.transaction() as session:
        await session.execute(
            update(AgentRun).where(AgentRun.id == ended.run_id).values(status="completed")
        )
        await session.execute(
            update(AgentRun)
            .where(AgentRun.id == taken.run_id)
            .values(status="failed", error=WORKER_STOPPED)
        )
    heartbeat = RunHeartbeat(runtime.database, interval_seconds=0.05)
    with (
        caplog.at_level(logging.WARNING),
        heartbeat.keep_alive(ended.run_id),
        heartbeat.keep_alive(taken.run_id),
    ):
        await asyncio.sleep(0.4)
    reported = [r.getMessage() for r in caplog.records if "declared dead" in r.getMessage()]
    assert reported and all(taken.run_id in message for message in reported)
