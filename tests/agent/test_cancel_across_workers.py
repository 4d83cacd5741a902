"""Stateless workers: a DELETE that reaches another worker than the one running the run still
cancels it (PostgreSQL LISTEN/NOTIFY); SQLite is one process and says so with 409."""

from __future__ import annotations

import asyncio

import httpx

from agentur.ai.service import AiService
from agentur.ai.settings import AiSettings
from agentur.api.app import create_app
from agentur.config import Settings
from agentur.runtime import Runtime
from tests.agent.test_cancel_api import HangingModel
from tests.conftest import Tenants


async def test_a_run_is_cancelled_from_another_worker(
    client: httpx.AsyncClient, runtime: Runtime, settings: Settings, tenants: Tenants
) -> None:
    alice = await tenants.member()
    model = HangingModel()
    runtime.ai = AiService([model], settings=AiSettings())
    other_runtime = Runtime.from_settings(settings)  # a second worker on the same database
    other = httpx.AsyncClient(
        transport=httpx.ASGITransport(app=create_app(runtime=other_runtime)),
        base_url="http://worker-b.test",
    )
    try:
        waiting = asyncio.create_task(
            client.post("/v1/agent/runs", headers=alice.headers, json={"prompt": "wait"})
        )
        await asyncio.wait_for(model.called.wait(), timeout=10)
        run_id = next(iter(client._transport.app.state.agent_runs._runs))  # type: ignore[attr-defined]
        cancelled = await other.delete(f"/v1/agent/runs/{run_id}", headers=alice.headers)
        if runtime.database.is_sqlite:
            # One process: a run that is not here was cut off by a restart.
            assert cancelled.status_code == 409 and "restart" in cancelled.json()["detail"]
            waiting.cancel()
            return
        assert cancelled.status_code == 202, cancelled.text
        response = await asyncio.wait_for(waiting, timeout=10)
        assert response.json()["status"] == "cancelled"
        trace = (await other.get(f"/v1/agent/runs/{run_id}", headers=alice.headers)).json()
        assert trace["status"] == "cancelled"
        # Someone else's run is not theirs to cancel, on any worker.
        bob = await tenants.member()
        assert (
            await other.delete(f"/v1/agent/runs/{run_id}", headers=bob.headers)
        ).status_code == 404
    finally:
        await other.aclose()
        await other_runtime.close()
