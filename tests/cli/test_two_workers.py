"""Stateless workers: two real `agentur serve` processes on one PostgreSQL (and one data dir)
behave like one server — a run is cancelled from the other worker, concurrent neutralized
calls of one workflow from both workers build one consistent placeholder map, and the visitor
rate limit counts across both.

The model is an OpenAI-compatible wire server on 127.0.0.1 that records what it was sent."""

from __future__ import annotations

import asyncio
import json
import time
import uuid
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import httpx
import pytest
from cryptography.fernet import Fernet
from sqlalchemy import select
from sqlalchemy.engine import make_url

from agentur.agent.conversation_manager import ROUND_CONTEXT_HEADER
from agentur.ai.neutralization.mapping_cipher import MappingCipher
from agentur.ai.neutralization.placeholder_map import PLACEHOLDER
from agentur.storage.database import create_engine
from agentur.storage.models.ai import NeutralizationMapping
from tests.ai.wire_servers import WireServer
from tests.assistant.definitions import shop_definition
from tests.cli.cli_helpers import Served, cli_env, serving
from tests.cli.hanging_run import hang_on_wait, run_in_model_call
from tests.conftest import BACKENDS, _admin_execute

pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif("postgresql" not in BACKENDS, reason="needs the PostgreSQL backend"),
]

RATE_PER_MINUTE = 4
WRITERS = 8  # neutralized runs, half on each worker, all at once


@pytest.fixture
def model() -> Iterator[WireServer]:
    with WireServer("openai", "/v1") as server:
        server.default_reply = hang_on_wait
        yield server


@dataclass
class Workers:
    a: Served
    b: Served
    admin_key: str
    mapping_key: str  # the neutralization key both workers share
    database_url: str


@pytest.fixture
def workers(tmp_path: Path, postgres_admin_url: str, model: WireServer) -> Iterator[Workers]:
    name = f"workers_{uuid.uuid4().hex[:12]}"
    asyncio.run(_admin_execute(postgres_admin_url, f"CREATE DATABASE {name}"))
    url = make_url(postgres_admin_url).set(database=name).render_as_string(False)
    key = Fernet.generate_key().decode()
    env = cli_env(tmp_path / ".agentur", url) | {
        "AGENTUR_OPENAI_COMPATIBLE_BASE_URL": model.base_url,
        "AGENTUR_OPENAI_COMPATIBLE_MODELS": "wire-model",
        "AGENTUR_NEUTRALIZATION_POLICY": "neutralize",
        "AGENTUR_NEUTRALIZATION_KEY": key,
        "AGENTUR_ASSISTANT_VISITOR_RATE_PER_MINUTE": str(RATE_PER_MINUTE),
        "AGENTUR_KNOWLEDGE_WORKER_ENABLED": "false",
    }
    try:
        # One after the other: the first start migrates and creates the admin.
        with serving(tmp_path, env, "worker-a") as a, serving(tmp_path, env, "worker-b") as b:
            admin_key = (tmp_path / ".agentur" / "admin.key").read_text().strip()
            yield Workers(a, b, admin_key, key, url)
    finally:
        asyncio.run(
            _admin_execute(postgres_admin_url, f"DROP DATABASE IF EXISTS {name} WITH (FORCE)")
        )


async def _stored_map(url: str, key: str, workflow_id: str) -> dict[str, str]:
    engine = create_engine(url)
    try:
        async with engine.connect() as connection:
            token = await connection.scalar(
                select(NeutralizationMapping.ciphertext).where(
                    NeutralizationMapping.workflow_id == workflow_id
                )
            )
    finally:
        await engine.dispose()
    return json.loads(MappingCipher(key).decrypt(token).to_json())["values"]


async def _cancel_from_the_other_worker(
    a: httpx.AsyncClient, b: httpx.AsyncClient, model: WireServer
) -> None:
    async with run_in_model_call(a, model) as (run_id, stream):  # on worker A
        cancelled = await b.delete(f"/v1/agent/runs/{run_id}")
        assert cancelled.status_code == 202, cancelled.text
        events = [line async for line in stream.aiter_lines() if line.startswith("event:")]
    assert events[-1] == "event: agent_summary"
    run = (await b.get(f"/v1/agent/runs/{run_id}")).json()
    assert run["status"] == "cancelled"
    assert (await b.delete(f"/v1/agent/runs/{run_id}")).status_code == 409


async def _neutralized_runs_from_both(
    a: httpx.AsyncClient, b: httpx.AsyncClient, model: WireServer, url: str, key: str
) -> None:
    first = await a.post("/v1/agent/runs", json={"prompt": "Start a workflow"})
    assert first.status_code == 200, first.text
    workflow_id = first.json()["workflow_id"]
    emails = [f"person{i}.{uuid.uuid4().hex[:6]}@example.com" for i in range(WRITERS)]
    sent = len(model.received)
    runs = [
        (a if i % 2 else b).post(
            "/v1/agent/runs",
            json={"prompt": f"Write to {email} please", "workflow_id": workflow_id},
        )
        for i, email in enumerate(emails)
    ]
    for response in await asyncio.gather(*runs):
        assert response.status_code == 200 and response.json()["status"] == "completed", (
            response.text
        )
    stored = await _stored_map(url, key, workflow_id)
    # One map: every value kept, each under its own placeholder (no worker overwrote another).
    assert sorted(stored.values()) == sorted(emails)
    # What the model saw matches that map: each prompt's placeholder stands for its address.
    checked = 0
    for request in model.received[sent:]:
        body = request.body.decode()
        assert not any(email in body for email in emails)
        # The agent's prompt: the last user message that is not the round context (clock,
        # memory); the workflow-memory extraction calls have other prompts and are covered by
        # the leak check.
        users = [m["content"] for m in request.json["messages"] if m["role"] == "user"]
        prompts = [u for u in users if not u.startswith(ROUND_CONTEXT_HEADER)]
        prompt = prompts[-1].strip() if prompts else ""
        if not prompt.startswith("Write to"):
            continue
        (placeholder,) = {m.group() for m in PLACEHOLDER.finditer(prompt)}
        assert f"Write to {stored[placeholder]} please" == PLACEHOLDER.sub(
            lambda m: stored[m.group()], prompt
        )
        checked += 1
    assert checked == WRITERS


async def _rate_limit_across_both(a: httpx.AsyncClient, b: httpx.AsyncClient) -> None:
    created = await a.post("/v1/assistants", json=shop_definition())
    assert created.status_code == 201, created.text
    assistant_id = created.json()["id"]
    key = (await b.post(f"/v1/assistants/{assistant_id}/visitor-keys")).json()["key"]
    visitor = {"Authorization": f"Bearer {key}"}
    if time.time() % 60 > 50:  # keep the burst inside one minute window
        await asyncio.sleep(61 - time.time() % 60)
    statuses = []
    for i in range(3 * RATE_PER_MINUTE):
        worker = a if i % 2 else b
        response = await worker.post(
            f"/v1/assistants/{assistant_id}/conversations", headers=visitor
        )
        statuses.append(response.status_code)
    assert statuses.count(201) == RATE_PER_MINUTE and statuses.count(429) == 2 * RATE_PER_MINUTE


def test_two_workers_behave_as_one(workers: Workers, model: WireServer) -> None:
    async def scenario() -> None:
        headers = {"Authorization": f"Bearer {workers.admin_key}"}
        async with (
            httpx.AsyncClient(base_url=workers.a.base_url, headers=headers, timeout=60) as a,
            httpx.AsyncClient(base_url=workers.b.base_url, headers=headers, timeout=60) as b,
        ):
            await _cancel_from_the_other_worker(a, b, model)
            await _neutralized_runs_from_both(
                a, b, model, workers.database_url, workers.mapping_key
            )
            await _rate_limit_across_both(a, b)

    asyncio.run(scenario())
