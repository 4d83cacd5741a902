"""No database connection free within `AGENTUR_DATABASE_POOL_TIMEOUT_SECONDS` → 503 with
`Retry-After` (problem+json; OpenAI's error object under `/openai/v1`), not a 500 after a long
hang, and the server works on once a connection is free again."""

from __future__ import annotations

from pathlib import Path

import httpx
import pytest
from sqlalchemy import text

from agentur.ai.service import AiService
from agentur.ai.settings import AiSettings
from agentur.config import Settings
from agentur.runtime import Runtime
from tests.api.test_backpressure import MODEL, RETRY_AFTER, GatedModel, assert_retry_later
from tests.conftest import Tenants
from tests.reread_settings import reread_settings


@pytest.fixture
def limits(runtime: Runtime, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("AGENTUR_RETRY_AFTER_SECONDS", RETRY_AFTER)
    reread_settings(runtime)


@pytest.fixture
def settings(tmp_path: Path, database_url: str) -> Settings:
    return Settings(
        data_dir=tmp_path / "data",
        database_url=database_url,
        database_pool_size=1,
        database_max_overflow=0,
        database_pool_timeout_seconds=0.3,
    )


async def test_no_free_database_connection_answers_503_with_retry_after(
    client: httpx.AsyncClient,
    runtime: Runtime,
    tenants: Tenants,
    limits: None,
) -> None:
    alice = await tenants.member()
    runtime.ai = AiService([GatedModel()], settings=AiSettings())
    chat = {"model": MODEL, "messages": [{"role": "user", "content": "Hi"}]}
    async with runtime.database.engine.connect() as held:
        await held.execute(text("SELECT 1"))  # the pool's only connection
        files = await client.get("/v1/files", headers=alice.headers)
        completion = await client.post(
            "/openai/v1/chat/completions", json=chat, headers=alice.headers
        )

    assert_retry_later(files, 503)
    assert files.headers["content-type"] == "application/problem+json"
    assert "AGENTUR_DATABASE_POOL_TIMEOUT_SECONDS" in files.json()["detail"]
    assert_retry_later(completion, 503)
    assert completion.json()["error"]["type"] == "server_error"
    assert "no database connection" in completion.json()["error"]["message"]
    assert (await client.get("/v1/files", headers=alice.headers)).status_code == 200
