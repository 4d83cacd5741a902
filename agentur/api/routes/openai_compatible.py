"""/openai/v1 — the OpenAI-compatible API: `GET /models`, `GET /models/{id}`,
`POST /chat/completions` and `POST /embeddings`; any other path answers OpenAI's 404.

The wire format is OpenAI's, not this API's problem+json, so the routes stay out of the
OpenAPI document (OpenAI publishes their schema). Models: the gateway models the caller may use
(`provider:name`), `agentur-agent` (a full agent run) and `assistant:<id>` per assistant of
the caller's mandate."""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter, Request, Response
from fastapi.responses import StreamingResponse

from agentur.api.backpressure.request_slots import RequestSlotsDep
from agentur.api.backpressure.tenant_limits import WorkKind
from agentur.api.dependencies import ContextDep, RuntimeDep
from agentur.api.openai_compatible import agent_completion, assistant_completion, gateway_completion
from agentur.api.openai_compatible.embeddings import EmbeddingRequest, embed
from agentur.api.openai_compatible.errors import (
    OpenAIError,
    OpenAIErrorRoute,
    invalid_url,
    model_not_found,
)
from agentur.api.openai_compatible.gateway_models import is_chat, usable_model, usable_models
from agentur.api.openai_compatible.schemas import ChatCompletionRequest
from agentur.api.openai_compatible.wire_format import STREAM_HEADERS
from agentur.api.problems import AUTHENTICATED
from agentur.context import RequestContext
from agentur.runtime import Runtime

router = APIRouter(
    prefix="/openai/v1",
    tags=["openai compatible"],
    responses=AUTHENTICATED,
    route_class=OpenAIErrorRoute,
    include_in_schema=False,
)
ALL_METHODS = ["GET", "POST", "PUT", "PATCH", "DELETE", "HEAD", "OPTIONS"]


def _model(model_id: str, owner: str, created: int = 0) -> dict[str, Any]:
    return {"id": model_id, "object": "model", "created": created, "owned_by": owner}


async def _models(runtime: Runtime, context: RequestContext) -> list[dict[str, Any]]:
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
    return models


@router.get("/models")
async def list_models(runtime: RuntimeDep, context: ContextDep) -> dict[str, Any]:
    return {"object": "list", "data": await _models(runtime, context)}


@router.get("/models/{model_id:path}")
async def get_model(model_id: str, runtime: RuntimeDep, context: ContextDep) -> dict[str, Any]:
    found = next((m for m in await _models(runtime, context) if m["id"] == model_id), None)
    if found is None:
        raise model_not_found(model_id)
    return found


@router.post("/chat/completions", response_model=None)
async def chat_completions(
    body: ChatCompletionRequest,
    request: Request,
    runtime: RuntimeDep,
    context: ContextDep,
    slots: RequestSlotsDep,
) -> dict[str, Any] | Response:
    # Each answer holds its mandate's slot until its last byte (see RequestSlots); a run
    # holds it to the run's end.
    if body.model == agent_completion.AGENT_MODEL:
        slot = await slots.take(WorkKind.agent_run, context.mandate_id)
        if body.stream:
            return await agent_completion.stream(request, runtime, body, context, slot)
        return await agent_completion.complete(request, runtime, body, context, slot)
    if assistant_id := assistant_completion.assistant_id(body.model):
        await slots.take(WorkKind.visitor_message, context.mandate_id)
        if body.stream:
            chunks = await assistant_completion.stream(runtime, body, assistant_id, context)
        else:
            return await assistant_completion.complete(runtime, body, assistant_id, context)
    else:
        spec = await usable_model(runtime.ai, context, body.model)
        if spec is None:
            raise model_not_found(body.model)
        if not is_chat(spec):
            raise OpenAIError(
                400, f"{body.model} is not a chat model", param="model", code="invalid_model"
            )
        await slots.take(WorkKind.model_call, context.mandate_id)
        if not body.stream:
            return await gateway_completion.complete(runtime.ai, body, spec, context)
        chunks = await gateway_completion.stream(runtime.ai, body, spec, context)
    return StreamingResponse(chunks, media_type="text/event-stream", headers=STREAM_HEADERS)


@router.post("/embeddings")
async def embeddings(
    body: EmbeddingRequest, runtime: RuntimeDep, context: ContextDep, slots: RequestSlotsDep
) -> dict[str, Any]:
    await slots.take(WorkKind.model_call, context.mandate_id)
    return await embed(runtime.ai, body, context)


@router.api_route("/{path:path}", methods=ALL_METHODS)
async def unknown_path(request: Request) -> None:
    """Every other path and method: OpenAI's 404 (`Invalid URL (GET /openai/v1/…)`)."""
    raise invalid_url(request.method, request.url.path)
