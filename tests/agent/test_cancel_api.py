"""Cancelling a running run: DELETE /v1/agent/runs/{id}, and a client that goes away."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator

import httpx

from agentur.agent.active_runs import ActiveRuns
from agentur.agent.config import AgentConfig
from agentur.agent.prepare_run import prepare_run
from agentur.ai.messages import AiRequest, StreamEvent
from agentur.ai.model_spec import ModelSpec
from agentur.ai.providers.scripted import ScriptedProvider, ScriptedTurn
from agentur.ai.service import AiService
from agentur.ai.settings import AiSettings
from agentur.api.routes.agent_runs import _stream
from agentur.context import RequestContext, Role
from agentur.runtime import Runtime
from tests.agent.support import chat_model, deps
from tests.conftest import Tenants


class HangingModel(ScriptedProvider):
    """Signals when a call arrives, then never answers."""

    def __init__(self) -> None:
        super().__init__([ScriptedTurn(text="never")], model_specs=[chat_model()])
        self.called = asyncio.Event()

    async def stream(self, model: ModelSpec, request: AiRequest) -> AsyncIterator[StreamEvent]:
        self.called.set()
        await asyncio.Event().wait()
        yield  # type: ignore[misc]  # pragma: no cover


async def test_delete_cancels_a_running_run(
    client: httpx.AsyncClient, runtime: Runtime, tenants: Tenants
) -> None:
    alice = await tenants.member()
    model = HangingModel()
    runtime.ai = AiService([model], settings=AiSettings())
    waiting = asyncio.create_task(
        client.post("/v1/agent/runs", headers=alice.headers, json={"prompt": "wait"})
    )
    await asyncio.wait_for(model.called.wait(), timeout=10)
    app = client._transport.app  # type: ignore[attr-defined]
    run_id = next(iter(app.state.agent_runs._runs))

    cancelled = await client.delete(f"/v1/agent/runs/{run_id}", headers=alice.headers)
    assert cancelled.status_code == 202, cancelled.text
    response = await asyncio.wait_for(waiting, timeout=10)
    assert response.json()["status"] == "cancelled"
    trace = (await client.get(f"/v1/agent/runs/{run_id}", headers=alice.headers)).json()
    assert trace["status"] == "cancelled" and trace["finished_at"] is not None


async def test_a_client_disconnect_cancels_the_streamed_run() -> None:
    model = HangingModel()
    run_deps = deps(AiService([model], settings=AiSettings()), [])
    context = RequestContext("u", "m", Role.member)
    prepared = await prepare_run("wait", AgentConfig(), context, run_deps)
    handle = ActiveRuns().start(prepared, run_deps)
    stream = _stream(handle, cancel_on_disconnect=True)
    first = await stream.__anext__()  # the `run` frame
    assert first.startswith("event: run")
    await asyncio.wait_for(model.called.wait(), timeout=10)
    await stream.aclose()  # what the server does when the client goes away
    result = await asyncio.wait_for(handle.result(), timeout=10)
    assert result.status == "cancelled"
