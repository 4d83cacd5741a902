"""/v1/agent/runs — start an agent run (streamed as SSE or awaited), read its trace, cancel it."""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator
from datetime import datetime
from typing import Annotated, Any

from fastapi import APIRouter, Header, Request, status
from fastapi.responses import StreamingResponse
from pydantic import BaseModel, Field

from agentur.agent.active_runs import ActiveRuns, AgentRunHandle
from agentur.agent.config import AgentConfig
from agentur.agent.prepare_run import prepare_run
from agentur.agent.recover_dead_runs import heartbeat_stopped, recover_dead_runs
from agentur.agent.settings import AgentSettings
from agentur.agent.trace import TraceStore
from agentur.api.backpressure.request_slots import RequestSlotsDep
from agentur.api.backpressure.tenant_limits import WorkKind
from agentur.api.dependencies import ContextDep, RuntimeDep
from agentur.api.problems import AUTHENTICATED, problem_responses
from agentur.context import RequestContext
from agentur.errors import ConflictError, NotFoundError
from agentur.runtime import Runtime
from agentur.storage.models.agent import AgentRun, AgentTraceEntry

router = APIRouter(prefix="/agent/runs", tags=["agent"], responses=AUTHENTICATED)
CANCEL_CHANNEL = "agentur_agent_run_cancel"

MAX_PROMPT_CHARS = 100_000


class RunRequest(BaseModel):
    prompt: str = Field(min_length=1, max_length=MAX_PROMPT_CHARS)
    workflow_id: str | None = None
    config: AgentConfig = Field(default_factory=AgentConfig)


class RunOut(BaseModel):
    run_id: str
    workflow_id: str | None
    status: str
    final_text: str
    rounds: int
    cost_chf: float
    usage: dict[str, int]


class TraceEntryOut(BaseModel):
    sequence: int
    kind: str
    round_index: int | None
    data: dict[str, Any]
    duration_ms: float | None
    created_at: datetime


class RunTraceOut(BaseModel):
    run_id: str
    workflow_id: str | None
    status: str
    prompt: str
    config: dict[str, Any]
    final_text: str
    rounds: int
    cost_chf: float
    usage: dict[str, int]
    models: list[str]
    error: str | None
    duration_ms: float | None
    created_at: datetime
    finished_at: datetime | None
    entries: list[TraceEntryOut]


async def agent_run_state(request: Request, runtime: Runtime) -> tuple[ActiveRuns, AgentSettings]:
    state = request.app.state
    if not hasattr(state, "agent_runs"):
        state.agent_runs = ActiveRuns(runtime.broadcast(CANCEL_CHANNEL))
    await state.agent_runs.listen()
    return state.agent_runs, runtime.all_settings.agent


def _sse(event: str, data: dict[str, Any]) -> str:
    return f"event: {event}\ndata: {json.dumps(data, ensure_ascii=False, default=str)}\n\n"


async def _stream(handle: AgentRunHandle, cancel_on_disconnect: bool) -> AsyncIterator[str]:
    try:
        yield _sse("run", {"run_id": handle.run_id, "workflow_id": handle.prepared.workflow_id})
        async for event in handle.events():
            yield _sse(event.type.value, event.data)
    finally:
        # Reached early only when the client went away (the server cancels this generator).
        if cancel_on_disconnect:
            handle.cancel()


@router.post(
    "",
    response_model=None,
    responses={
        200: {
            "model": RunOut,
            "description": "The finished run; with `Accept: text/event-stream` its events.",
            "content": {"text/event-stream": {"schema": {"type": "string"}}},
        },
        **problem_responses(402, 404, 429, 502, 503),
    },
)
async def start_run(
    body: RunRequest,
    request: Request,
    runtime: RuntimeDep,
    context: ContextDep,
    slots: RequestSlotsDep,
    accept: Annotated[str | None, Header()] = None,
) -> RunOut | StreamingResponse:
    slot = await slots.take(WorkKind.agent_run, context.mandate_id)
    runs, settings = await agent_run_state(request, runtime)
    deps = runtime.agent_dependencies(settings)
    prepared = await prepare_run(
        body.prompt, body.config, context, deps, workflow_id=body.workflow_id
    )
    handle = runs.start(prepared, deps)
    slot.last_until(handle.task)  # the run's whole life, also past a client that went away
    if "text/event-stream" in (accept or ""):
        return StreamingResponse(
            _stream(handle, settings.agent_cancel_on_disconnect),
            media_type="text/event-stream",
            headers={"Cache-Control": "no-cache", "X-Agent-Run-Id": handle.run_id},
        )
    try:
        result = await handle.result()
    except asyncio.CancelledError:
        if settings.agent_cancel_on_disconnect:
            handle.cancel()
        raise
    return RunOut(
        run_id=result.run_id,
        workflow_id=result.workflow_id,
        status=result.status.value,
        final_text=result.final_text,
        rounds=result.rounds,
        cost_chf=result.cost_chf,
        usage=result.usage_dict(),
    )


async def _read_run(
    run_id: str, runtime: Runtime, context: RequestContext, settings: AgentSettings
) -> tuple[AgentRun, list[AgentTraceEntry]]:
    """The caller's run as stored; one whose worker died is recovered first (the periodic
    sweep would get to it within a heartbeat interval; a caller asking now need not wait)."""
    store = TraceStore(runtime.database)
    run, entries = await store.get(run_id, context)
    timeout = settings.agent_heartbeat_timeout_seconds
    if heartbeat_stopped(run, timeout):
        alive_here = runtime.run_heartbeat(settings).running
        await recover_dead_runs(runtime.database, timeout, run_ids=[run.id], alive_here=alive_here)
        run, entries = await store.get(run_id, context)
    return run, entries


@router.get("/{run_id}", responses=problem_responses(404))
async def get_run(
    run_id: str, request: Request, runtime: RuntimeDep, context: ContextDep
) -> RunTraceOut:
    _, settings = await agent_run_state(request, runtime)
    run, entries = await _read_run(run_id, runtime, context, settings)
    return RunTraceOut(
        run_id=run.id,
        workflow_id=run.workflow_id,
        status=run.status,
        prompt=run.prompt,
        config=run.config,
        final_text=run.final_text,
        rounds=run.rounds,
        cost_chf=run.cost_chf,
        usage={
            "input_tokens": run.input_tokens,
            "output_tokens": run.output_tokens,
            "total_tokens": run.input_tokens + run.output_tokens,
        },
        models=run.models,
        error=run.error,
        duration_ms=run.duration_ms,
        created_at=run.created_at,
        finished_at=run.finished_at,
        entries=[TraceEntryOut.model_validate(e, from_attributes=True) for e in entries],
    )


@router.delete(
    "/{run_id}", status_code=status.HTTP_202_ACCEPTED, responses=problem_responses(404, 409)
)
async def cancel_run(
    run_id: str, request: Request, runtime: RuntimeDep, context: ContextDep
) -> dict[str, str]:
    runs, settings = await agent_run_state(request, runtime)
    handle = runs.get(run_id, context)
    if handle is not None and handle.cancel():
        return {"run_id": run_id, "status": "cancelling"}
    try:
        run, _ = await _read_run(run_id, runtime, context, settings)  # the caller's only
    except NotFoundError:
        raise NotFoundError(f"agent run {run_id} is not running here") from None
    # Running on another worker: that one cancels it (poll GET for the final status).
    if run.status == "running":
        if await runs.cancel_elsewhere(run_id):
            return {"run_id": run_id, "status": "cancelling"}
        # One process (SQLite) and not here: the server stopped while the run was going.
        raise ConflictError(f"agent run {run_id} was interrupted by a server restart")
    raise ConflictError(f"agent run {run_id} has already finished ({run.status})")
