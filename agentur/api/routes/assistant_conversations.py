"""/v1/assistants/{id}/conversations — what visitors use (publishable key or mandate key).

`POST …/messages` streams Server-Sent Events (`thinking`, `chunk`, `sources`, `action`,
`final`) when the client sends `Accept: text/event-stream`, else answers the final JSON.
CORS answers only origins listed in the assistant's `allowed_origins`; a publishable key
sent from any other origin is refused (403), not merely left without CORS headers.
Starting a conversation returns a secret `token`; a publishable-key caller must send it as
`X-Conversation-Token` (with the same key) on every later call, else 404.
"""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from typing import Annotated, Any, Literal

from fastapi import APIRouter, Depends, Request, Response, status
from fastapi.responses import JSONResponse, StreamingResponse
from pydantic import BaseModel, Field

from agentur.api.assistant_dependencies import (
    AiDep,
    AssistantSettingsDep,
    CallerDep,
    CredentialsBoxDep,
)
from agentur.api.backpressure.request_slots import RequestSlotsDep
from agentur.api.backpressure.tenant_limits import WorkKind
from agentur.api.dependencies import RuntimeDep, SessionDep, hand_back_connection
from agentur.api.parameters import NOT_BLANK
from agentur.api.problems import problem_responses
from agentur.api.visitor_cors import CorsDep, cors_headers, preflight_headers
from agentur.assistant.assistant_service import parse_definition
from agentur.assistant.assistant_store import AssistantStore
from agentur.assistant.conversation_service import ConversationService
from agentur.assistant.events import TurnEvent
from agentur.assistant.send_escalation_email import send_escalation_email
from agentur.errors import InvalidInputError, NotFoundError
from agentur.setting_limits import limit_from_setting

router = APIRouter(
    prefix="/assistants",
    tags=["assistant conversations"],
    responses=problem_responses(400, 401, 403, 404, 422, 429),
    # First of all: the CORS grant also reaches error answers (see agentur.api.visitor_cors).
    dependencies=[Depends(cors_headers)],
)
CONVERSATION_PARTS = Literal["messages", "escalations"]


class MessageIn(BaseModel):
    # Checked (with the configured limit) by the conversation service; stated here.
    text: str = Field(
        description="Not only spaces; at most AGENTUR_ASSISTANT_MAX_MESSAGE_CHARS characters.",
        json_schema_extra={
            "minLength": 1,
            "pattern": NOT_BLANK,
            **limit_from_setting("assistant_max_message_chars"),
        },
    )


class EscalationIn(BaseModel):
    help_desk: str | None = None
    email: str | None = Field(default=None, max_length=320)
    text: str = Field(min_length=1, max_length=10_000)


PREFLIGHT = {
    "status_code": status.HTTP_204_NO_CONTENT,
    "response_class": Response,
    "responses": {204: {"description": "CORS headers when the Origin is allowed, else none."}},
}


@router.options("/{assistant_id}/conversations", **PREFLIGHT)  # type: ignore[arg-type]
async def preflight_conversations(assistant_id: str, cors: CorsDep) -> Response:
    """CORS preflight for starting a conversation."""
    return Response(status_code=status.HTTP_204_NO_CONTENT, headers=preflight_headers(cors))


@router.options("/{assistant_id}/conversations/{conversation_id}/{part}", **PREFLIGHT)  # type: ignore[arg-type]
async def preflight_conversation_part(
    assistant_id: str,
    conversation_id: str,
    part: CONVERSATION_PARTS,
    cors: CorsDep,
) -> Response:
    """CORS preflight for a conversation's messages and escalations."""
    return Response(status_code=status.HTTP_204_NO_CONTENT, headers=preflight_headers(cors))


def conversation_service(
    runtime: RuntimeDep,
    settings: AssistantSettingsDep,
    ai: AiDep,
    caller: CallerDep,
    box: CredentialsBoxDep,
) -> ConversationService:
    """The conversation service acting for the request's caller (built once per request)."""
    return ConversationService(runtime, settings, ai, caller.context, box, caller.access)


ConversationServiceDep = Annotated[ConversationService, Depends(conversation_service)]


@router.post(
    "/{assistant_id}/conversations",
    status_code=status.HTTP_201_CREATED,
    responses={201: {"description": "The conversation's `id` and secret `token`."}},
)
async def start_conversation(
    assistant_id: str, cors: CorsDep, caller: CallerDep, service: ConversationServiceDep
) -> JSONResponse:
    caller.check_assistant(assistant_id)
    started = await service.start(assistant_id)
    return JSONResponse(started, status_code=201, headers=cors)


def _sse(event: TurnEvent) -> str:
    return (
        f"event: {event.type}\ndata: {json.dumps(event.data, ensure_ascii=False, default=str)}\n\n"
    )


@router.post(
    "/{assistant_id}/conversations/{conversation_id}/messages",
    responses={
        200: {
            "description": "The final answer; with `Accept: text/event-stream` the events.",
            "content": {
                "application/json": {"schema": {"type": "object"}},
                "text/event-stream": {"schema": {"type": "string"}},
            },
        },
        **problem_responses(402, 429, 502, 503),
    },
)
async def send_message(
    assistant_id: str,
    conversation_id: str,
    body: MessageIn,
    request: Request,
    cors: CorsDep,
    caller: CallerDep,
    service: ConversationServiceDep,
    slots: RequestSlotsDep,
) -> Response:
    caller.check_assistant(assistant_id)
    await slots.take(WorkKind.visitor_message, caller.context.mandate_id)
    events = service.send(assistant_id, conversation_id, body.text)
    # The first event comes after every lookup, so not-found and invalid input still become
    # problem+json instead of a broken stream.
    first = await anext(events)
    if "text/event-stream" in request.headers.get("accept", ""):

        async def stream() -> AsyncIterator[str]:
            yield _sse(first)
            async for event in events:
                yield _sse(event)

        return StreamingResponse(
            stream(),
            media_type="text/event-stream",
            headers=cors | {"Cache-Control": "no-store"},
        )
    collected = [first] + [event async for event in events]
    final: dict[str, Any] = collected[-1].data  # carries the thinking events too
    return JSONResponse(json.loads(json.dumps(final, default=str)), headers=cors)


@router.get("/{assistant_id}/conversations/{conversation_id}/messages")
async def history(
    assistant_id: str,
    conversation_id: str,
    response: Response,
    cors: CorsDep,
    caller: CallerDep,
    service: ConversationServiceDep,
) -> list[dict[str, Any]]:
    caller.check_assistant(assistant_id)
    response.headers.update(cors)
    return await service.history(assistant_id, conversation_id)


@router.post(
    "/{assistant_id}/conversations/{conversation_id}/escalations",
    responses={
        200: {"description": "Delivered.", "content": {"application/json": {"schema": {}}}},
        503: {
            "description": "E-mail is not configured or failed; the other options.",
            "content": {"application/json": {"schema": {"type": "object"}}},
        },
    },
)
async def escalate_by_email(
    assistant_id: str,
    conversation_id: str,
    body: EscalationIn,
    cors: CorsDep,
    session: SessionDep,
    settings: AssistantSettingsDep,
    caller: CallerDep,
    service: ConversationServiceDep,
) -> JSONResponse:
    """Sends the visitor's request to the help desk by e-mail; 503 and the other options when
    e-mail is not configured or the SMTP server refused — never a claimed delivery."""
    caller.check_assistant(assistant_id)
    assistant = await AssistantStore(session, caller.context.mandate_id).get(assistant_id)
    definition = parse_definition(assistant.definition)
    desk = definition.help_desk(body.help_desk)
    if desk is None:
        raise NotFoundError(f"help desk {body.help_desk} not found")
    await hand_back_connection(session)  # the service reads with a session of its own
    messages = await service.history(assistant_id, conversation_id)
    if body.email is not None and "@" not in body.email:
        raise InvalidInputError("email: not an e-mail address")
    transcript = "\n".join(f"{m['role']}: {m['text']}" for m in messages[-20:])
    language = (
        messages[-1]["data"]["language"]
        if messages and messages[-1]["data"]
        else definition.languages[0]
    )
    result = await send_escalation_email(
        settings, desk, body.email, body.text, language, transcript
    )
    payload = {
        "delivered": result.delivered,
        "message": result.message,
        "error": result.error,
        "alternatives": result.alternatives,
    }
    code = status.HTTP_200_OK if result.delivered else status.HTTP_503_SERVICE_UNAVAILABLE
    return JSONResponse(payload, status_code=code, headers=cors)
