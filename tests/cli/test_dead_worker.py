"""A worker killed with SIGKILL in the middle of a run: the next `agentur serve` to start finds
the run's heartbeat stopped and ends it as `failed`, releasing the budget hold it made."""

from __future__ import annotations

import asyncio
import os
import signal
import time
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest
from sqlalchemy import func, select

from agentur.agent.recover_dead_runs import WORKER_STOPPED
from agentur.storage.database import create_engine
from agentur.storage.models.ai import AiReservation
from tests.ai.wire_servers import WireServer
from tests.cli.cli_helpers import cli_env, serving
from tests.cli.hanging_run import hang_on_wait, run_in_model_call

pytestmark = pytest.mark.slow


@pytest.fixture
def model() -> Iterator[WireServer]:
    with WireServer("openai", "/v1") as server:
        server.default_reply = hang_on_wait
        yield server


async def _holds_of(url: str, run_id: str) -> int:
    engine = create_engine(url)
    try:
        async with engine.connect() as connection:
            count = await connection.scalar(
                select(func.count()).where(AiReservation.holder == run_id)
            )
    finally:
        await engine.dispose()
    return int(count or 0)


async def _kill_during_a_run(
    base_url: str, pid: int, headers: dict[str, str], model: WireServer, url: str
) -> str:
    """Start a run that hangs in its model call, holding budget, and SIGKILL its worker."""
    async with httpx.AsyncClient(base_url=base_url, headers=headers, timeout=60) as client:
        limited = await client.patch("/v1/admin/ai-settings", json={"monthly_limit_chf": 100})
        assert limited.status_code == 200, limited.text  # so the call holds its worst case
        async with run_in_model_call(client, model) as (run_id, _):  # holding the budget
            assert await _holds_of(url, run_id) == 1
            os.kill(pid, signal.SIGKILL)  # with the client still streaming: no cancellation
    return run_id


async def _until_failed(base_url: str, headers: dict[str, str], run_id: str) -> dict:
    async with httpx.AsyncClient(base_url=base_url, headers=headers, timeout=60) as client:
        deadline = time.monotonic() + 30
        while True:
            run = (await client.get(f"/v1/agent/runs/{run_id}")).json()
            if run["status"] != "running" or time.monotonic() > deadline:
                deleted = await client.delete(f"/v1/agent/runs/{run_id}")
                return run | {"delete_status": deleted.status_code}
            await asyncio.sleep(0.1)


def test_a_killed_workers_run_fails_when_the_next_worker_starts(
    tmp_path: Path, empty_database_url: str, model: WireServer
) -> None:
    env = cli_env(tmp_path / ".agentur", empty_database_url) | {
        "AGENTUR_OPENAI_COMPATIBLE_BASE_URL": model.base_url,
        "AGENTUR_OPENAI_COMPATIBLE_MODELS": "wire-model",
        "AGENTUR_KNOWLEDGE_WORKER_ENABLED": "false",
        "AGENTUR_AGENT_HEARTBEAT_SECONDS": "0.5",
        "AGENTUR_AGENT_HEARTBEAT_TIMEOUT_SECONDS": "2",
    }
    with serving(tmp_path, env, "worker-a") as a:
        headers = {
            "Authorization": f"Bearer {(tmp_path / '.agentur' / 'admin.key').read_text().strip()}"
        }
        run_id = asyncio.run(
            _kill_during_a_run(a.base_url, a.pid, headers, model, empty_database_url)
        )
    with serving(tmp_path, env, "worker-b") as b:
        run = asyncio.run(_until_failed(b.base_url, headers, run_id))
    assert (run["status"], run["error"]) == ("failed", WORKER_STOPPED), run
    assert run["delete_status"] == 409  # as for any finished run
    assert asyncio.run(_holds_of(empty_database_url, run_id)) == 0
