"""A database that is busy or out of reach for a while answers 503 with `Retry-After` (a
client retries and succeeds), not 500: SQLite's write lock held past
`AGENTUR_DATABASE_BUSY_TIMEOUT_SECONDS`, a PostgreSQL that refuses connections (restarting).
Both happened under load: "database is locked" and a `/healthz` that answered 500 while
PostgreSQL restarted."""

from __future__ import annotations

import socket
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest
import sqlean
from fastapi import FastAPI
from starlette.datastructures import State

from agentur.ai.service import AiService
from agentur.ai.settings import AiSettings
from agentur.config import Settings
from agentur.runtime import Runtime
from tests.api.test_backpressure import MODEL, RETRY_AFTER, GatedModel, assert_retry_later
from tests.conftest import Tenants
from tests.reread_settings import reread_settings


@pytest.fixture
def retry_after(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("AGENTUR_RETRY_AFTER_SECONDS", RETRY_AFTER)


@pytest.fixture
def limits(runtime: Runtime, retry_after: None) -> None:
    reread_settings(runtime)  # the test's runtime was built before the setting


@pytest.fixture
def settings(tmp_path: Path, database_url: str) -> Settings:
    return Settings(
        data_dir=tmp_path / "data", database_url=database_url, database_busy_timeout_seconds=0.2
    )


@pytest.fixture
def write_lock(database_url: str) -> Iterator[sqlean.Connection]:
    """Another connection that takes SQLite's write lock and keeps it."""
    if not database_url.startswith("sqlite"):
        pytest.skip("SQLite's write lock")
    holder = sqlean.connect(database_url.split(":///", 1)[1], isolation_level=None)
    try:
        yield holder
    finally:
        holder.close()


async def test_sqlite_write_lock_held_past_the_busy_timeout_answers_503(
    client: httpx.AsyncClient,
    runtime: Runtime,
    tenants: Tenants,
    limits: None,
    write_lock: sqlean.Connection,
) -> None:
    alice = await tenants.member()
    runtime.ai = AiService([GatedModel()], settings=AiSettings())
    chat = {"model": MODEL, "messages": [{"role": "user", "content": "Hi"}]}
    write_lock.execute("BEGIN IMMEDIATE")
    folder = await client.post("/v1/folders", json={"name": "Reports"}, headers=alice.headers)
    completion = await client.post("/openai/v1/chat/completions", json=chat, headers=alice.headers)
    write_lock.execute("COMMIT")

    assert_retry_later(folder, 503)
    assert folder.headers["content-type"] == "application/problem+json"
    assert "database is busy" in folder.json()["detail"]
    assert_retry_later(completion, 503)
    assert completion.json()["error"]["type"] == "server_error"
    assert "database is busy" in completion.json()["error"]["message"]
    again = await client.post("/v1/folders", json={"name": "Reports"}, headers=alice.headers)
    assert again.status_code == 201, again.text


def closed_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]  # nothing listens once the probe is closed


@pytest.mark.parametrize("where", ["closed port", "missing unix socket"])
async def test_unreachable_postgresql_answers_503_on_healthz_and_api(
    tmp_path: Path, api_app: FastAPI, retry_after: None, where: str
) -> None:
    # The embedded server of the scale-out bench listens on a Unix socket, whose file is gone
    # while it restarts: FileNotFoundError, not ConnectionRefusedError.
    url = (
        f"postgresql://agentur@127.0.0.1:{closed_port()}/agentur"
        if where == "closed port"
        else f"postgresql://agentur@/agentur?host={tmp_path / 'gone'}"
    )
    runtime = Runtime.from_settings(Settings(data_dir=tmp_path / "data", database_url=url))
    api_app.state = State({"runtime": runtime})
    api_app.openapi_schema = None
    transport = httpx.ASGITransport(app=api_app)
    try:
        async with httpx.AsyncClient(transport=transport, base_url="http://agentur.test") as client:
            health = await client.get("/healthz")
            files = await client.get(
                "/v1/files", headers={"Authorization": "Bearer agt_lookup_secret"}
            )
    finally:
        await runtime.close()

    assert_retry_later(health, 503)
    assert "not reachable" in health.json()["detail"]
    assert_retry_later(files, 503)
