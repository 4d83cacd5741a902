"""/openai/v1 — the OpenAI-compatible API: `GET /models` and `POST /chat/completions`.

The wire format is OpenAI's, not this API's problem+json, so the routes stay out of the
OpenAPI document (OpenAI publishes their schema). Models: the gateway models the caller may use
(`provider:name`), `agentur-agent` (a full agent run) and `assistant:<id>` per assistant of
the caller's mandate."""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter, Request
from fastapi.responses import StreamingResponse

from agentur.api.backpressure.request_slots import RequestSlotsDep
from agentur.api.backpressure.tenant_limits import WorkKind
from agentur.api.dependencies import ContextDep, RuntimeDep
from agentur.api.openai_compatible import agent_completion, assistant_completion, gateway_completion
from agentur.api.openai_compatible.errors import OpenAIErrorRoute, model_not_found
from agentur.api.openai_compatible.gateway_models import usable_models
from agentur.api.openai_compatible.schemas import ChatCompletionRequest
from agentur.api.problems import AUTHENTICATED

router = APIRouter(
    prefix="/openai/v1",
    tags=["openai compatible"],
    responses=AUTHENTICATED,
    route_class=OpenAIErrorRoute,
    include_in_schema=False,
)
STREAM_HEADERS = {"Cache-Control": "no-cache", "X-Accel-Buffering": "no"}


def _model(model_id: str, owner: str, created: int = 0) -> dict[str, Any]:
    return {"id": model_id, "object": "model", "created": created, "owned_by": owner}


@router.get("/models")
async def list_models(runtime: RuntimeDep, context: ContextDep) -> dict[str, Any]:
    models = [_model(spec.id, spec.provider) for spec in await usable_models(runtime.ai, context)]
    models.append(_model(agent_completion.AGENT_MODEL, "agentur"))
    for assistant in await assistant_completion.assistants(runtime, context):
        models.append(
            _model(
                assistant_completion.model_id(assistant.id),
                "agentur",
                int(assistant.created_at.timestamp()),
            )
        )
    return {"object": "list", "data": models}


@router.post("/chat/completions", response_model=None)
async def chat_completions(
    body: ChatCompletionRequest,
    request: Request,
    runtime: RuntimeDep,
    context: ContextDep,
    slots: RequestSlotsDep,
) -> dict[str, Any] | StreamingResponse:
    # Each answer holds its mandate's slot until its last byte (see RequestSlots); a run
    # holds it to the run's end.
    if body.model == agent_completion.AGENT_MODEL:
        slot = await slots.take(WorkKind.agent_run, context.mandate_id)
        if body.stream:
            chunks = await agent_completion.stream(request, runtime, body, context, slot)
        else:
            return await agent_completion.complete(request, runtime, body, context, slot)
    elif assistant_id := assistant_completion.assistant_id(body.model):
        await slots.take(WorkKind.visitor_message, context.mandate_id)
        if body.stream:
            chunks = await assistant_completion.stream(runtime, body, assistant_id, context)
        else:
            return await assistant_completion.complete(runtime, body, assistant_id, context)
    elif body.model in {spec.id for spec in await usable_models(runtime.ai, context)}:
        await slots.take(WorkKind.model_call, context.mandate_id)
        if body.stream:
            chunks = await gateway_completion.stream(runtime.ai, body, body.model, context)
        else:
            return await gateway_completion.complete(runtime.ai, body, body.model, context)
    else:
        raise model_not_found(body.model)
    return StreamingResponse(chunks, media_type="text/event-stream", headers=STREAM_HEADERS)
