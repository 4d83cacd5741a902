"""/openai/v1 — the OpenAI-compatible API: `GET /models` and `POST /chat/completions`.

The wire format is OpenAI's, not this API's problem+json, so the routes stay out of the
OpenAPI document (OpenAI publishes their schema). Models: the gateway models the caller may use
(`provider:name`), `agentur-agent` (a full agent run) and `assistant:<id>` per assistant of
the caller's mandate."""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter, Request
from fastapi.responses import StreamingResponse

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
    body: ChatCompletionRequest, request: Request, runtime: RuntimeDep, context: ContextDep
) -> dict[str, Any] | StreamingResponse:
    if body.model == agent_completion.AGENT_MODEL:
        if body.stream:
            chunks = await agent_completion.stream(request, runtime, body, context)
        else:
            return await agent_completion.complete(request, runtime, body, context)
    elif assistant_id := assistant_completion.assistant_id(body.model):
        if body.stream:
            chunks = await assistant_completion.stream(runtime, body, assistant_id, context)
        else:
            return await assistant_completion.complete(runtime, body, assistant_id, context)
    elif body.model in {spec.id for spec in await usable_models(runtime.ai, context)}:
        if body.stream:
            chunks = await gateway_completion.stream(runtime.ai, body, body.model, context)
        else:
            return await gateway_completion.complete(runtime.ai, body, body.model, context)
    else:
        raise model_not_found(body.model)
    return StreamingResponse(chunks, media_type="text/event-stream", headers=STREAM_HEADERS)
