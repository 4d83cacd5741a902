"""Saturation is answered, not suffered: 429/503 with `Retry-After` instead of a hang and a 500.

- One mandate's burst of agent runs takes only its own slots: the rest of the burst gets 429,
  while another mandate's reads and its own run are served as the burst is held.
- All mandates together reach the worker's limit → 503.

(No free database connection → 503: tests/api/test_pool_saturation.py.)
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import AsyncIterator

import httpx
import pytest

from agentur.ai.messages import AiRequest, StreamEvent
from agentur.ai.model_spec import ModelSpec
from agentur.ai.providers.scripted import ScriptedProvider, ScriptedTurn
from agentur.ai.service import AiService
from agentur.ai.settings import AiSettings
from agentur.runtime import Runtime
from tests.agent.support import chat_model
from tests.conftest import Member, Tenants
from tests.reread_settings import reread_settings

HOLD = "HOLD until released"
RETRY_AFTER = "7"
MODEL = f"scripted:{chat_model().name}"


class GatedModel(ScriptedProvider):
    """Answers at once, except a prompt saying HOLD: that answer stops after its first words
    until `release()`."""

    def __init__(self) -> None:
        super().__init__(model_specs=[chat_model()], fallback=ScriptedTurn("Done."))
        self.held = 0
        self._open = asyncio.Event()

    def release(self) -> None:
        self._open.set()

    async def _gate(self, request: AiRequest) -> None:
        if any(HOLD in message.content for message in request.messages):
            self.held += 1
            await self._open.wait()

    async def stream(self, model: ModelSpec, request: AiRequest) -> AsyncIterator[StreamEvent]:
        first = True
        async for event in super().stream(model, request):
            yield event
            if first:
                first = False
                await self._gate(request)


@pytest.fixture
def limits(runtime: Runtime, monkeypatch: pytest.MonkeyPatch) -> None:
    """Small limits, set the way the README tells an operator to."""
    monkeypatch.setenv("AGENTUR_TENANT_MAX_AGENT_RUNS", "3")
    monkeypatch.setenv("AGENTUR_WORKER_MAX_EXPENSIVE_REQUESTS", "5")
    monkeypatch.setenv("AGENTUR_ADMISSION_WAIT_SECONDS", "0.2")
    monkeypatch.setenv("AGENTUR_RETRY_AFTER_SECONDS", RETRY_AFTER)
    reread_settings(runtime)


def run(client: httpx.AsyncClient, member: Member, prompt: str) -> asyncio.Task[httpx.Response]:
    return asyncio.create_task(
        client.post("/v1/agent/runs", headers=member.headers, json={"prompt": prompt})
    )


async def until(condition: object, what: str) -> None:
    deadline = time.monotonic() + 30
    while not condition():  # type: ignore[operator]
        assert time.monotonic() < deadline, f"timed out waiting for {what}"
        await asyncio.sleep(0.02)


def assert_retry_later(response: httpx.Response, status: int) -> None:
    assert response.status_code == status, response.text
    assert response.headers["retry-after"] == RETRY_AFTER


async def test_a_mandates_burst_gets_429_and_leaves_another_mandate_served(
    client: httpx.AsyncClient, runtime: Runtime, tenants: Tenants, limits: None
) -> None:
    alice, bob = await tenants.member("acme"), await tenants.member("globex")
    model = GatedModel()
    runtime.ai = AiService([model], settings=AiSettings())

    burst = [run(client, alice, HOLD) for _ in range(10)]
    await until(lambda: model.held == 3 and sum(t.done() for t in burst) == 7, "the burst")
    for refused in [t.result() for t in burst if t.done()]:
        assert_retry_later(refused, 429)
        assert refused.headers["content-type"] == "application/problem+json"
        assert "AGENTUR_TENANT_MAX_AGENT_RUNS" in refused.json()["detail"]
    agent = {"model": "agentur-agent", "messages": [{"role": "user", "content": HOLD}]}
    openai = await client.post("/openai/v1/chat/completions", json=agent, headers=alice.headers)
    assert_retry_later(openai, 429)
    assert openai.json()["error"]["type"] == "rate_limit_error"

    # While alice's three runs are held: bob's reads and his own run are served, and so are
    # alice's cheap reads (they take no slot).
    assert (await client.get("/v1/files", headers=bob.headers)).status_code == 200
    assert (await client.get("/v1/files", headers=alice.headers)).status_code == 200
    answered = await run(client, bob, "Say hello.")
    assert answered.status_code == 200, answered.text
    assert answered.json()["status"] == "completed"
    assert sum(t.done() for t in burst) == 7  # alice's three runs are still held

    model.release()
    finished = await asyncio.gather(*burst)
    assert sorted(r.status_code for r in finished) == [200] * 3 + [429] * 7
    # The slots are free again once the runs ended.
    assert (await run(client, alice, "Again.")).status_code == 200


async def test_all_mandates_together_reach_the_workers_limit_and_get_503(
    client: httpx.AsyncClient, runtime: Runtime, tenants: Tenants, limits: None
) -> None:
    alice, bob, carol = [await tenants.member(name) for name in ("acme", "globex", "initech")]
    model = GatedModel()
    runtime.ai = AiService([model], settings=AiSettings())
    held = [run(client, alice, HOLD) for _ in range(3)] + [run(client, bob, HOLD) for _ in range(2)]
    await until(lambda: model.held == 5, "five held runs")

    refused = await run(client, carol, "Say hello.")
    assert_retry_later(refused, 503)
    assert "AGENTUR_WORKER_MAX_EXPENSIVE_REQUESTS" in refused.json()["detail"]

    model.release()
    assert [r.status_code for r in await asyncio.gather(*held)] == [200] * 5
    assert (await run(client, carol, "Say hello.")).status_code == 200


async def test_a_streamed_answer_holds_its_slot_until_its_last_byte(
    client: httpx.AsyncClient,
    runtime: Runtime,
    tenants: Tenants,
    limits: None,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("AGENTUR_TENANT_MAX_MODEL_CALLS", "1")
    reread_settings(runtime)
    alice = await tenants.member()
    model = GatedModel()
    runtime.ai = AiService([model], settings=AiSettings())
    held = {"model": MODEL, "messages": [{"role": "user", "content": HOLD}], "stream": True}
    streaming = asyncio.create_task(
        client.post("/openai/v1/chat/completions", json=held, headers=alice.headers)
    )
    await until(lambda: model.held == 1, "the stream to be under way")

    chat = {"model": MODEL, "messages": [{"role": "user", "content": "Hi"}]}
    refused = await client.post("/openai/v1/chat/completions", json=chat, headers=alice.headers)
    assert_retry_later(refused, 429)
    assert refused.json()["error"]["code"] == "rate_limit_exceeded"

    model.release()
    streamed = await streaming
    assert streamed.status_code == 200 and "data: [DONE]" in streamed.text
    answered = await client.post("/openai/v1/chat/completions", json=chat, headers=alice.headers)
    assert answered.status_code == 200, answered.text
