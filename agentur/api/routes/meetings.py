"""/v1/meetings — the live meeting assistant: sessions, their transcript, the events of what
the assistant says (SSE), and the operators' directives."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from datetime import datetime
from typing import Annotated, Literal

from fastapi import APIRouter, Header, Query, Request, status
from fastapi.responses import StreamingResponse
from pydantic import AnyHttpUrl, BaseModel, Field, StrictFloat

from agentur.api.dependencies import ContextDep, RuntimeDep
from agentur.api.problems import AUTHENTICATED, problem_responses
from agentur.egress.check_target import check_saved_target
from agentur.egress.parse_url import parse_url
from agentur.errors import InvalidInputError
from agentur.meetings.delivery import webhook_policy
from agentur.meetings.events import MeetingEvent
from agentur.meetings.records import (
    Directive,
    DirectiveKind,
    MeetingOptions,
    MeetingRecord,
    Utterance,
)
from agentur.meetings.service import MeetingService
from agentur.names import OptionalName
from agentur.runtime import Runtime

router = APIRouter(prefix="/meetings", tags=["meetings"], responses=AUTHENTICATED)

MAX_LANGUAGES = 10
MAX_OPERATORS = 50
MAX_BUDGET_CHF = 1_000.0
KnowledgeScope = Literal["personal", "feature_instance", "mandate", "global"]


def meeting_service(request: Request, runtime: Runtime) -> MeetingService:
    state = request.app.state
    if not hasattr(state, "meetings"):
        state.meetings = MeetingService(
            runtime, runtime.all_settings.meetings, runtime.all_settings.agent
        )
    return state.meetings


class MeetingCreate(BaseModel):
    title: OptionalName = ""
    languages: list[Annotated[str, Field(pattern=r"^[a-z]{2,3}$")]] = Field(
        default_factory=list, max_length=MAX_LANGUAGES, description="ISO 639-1 codes, e.g. de."
    )
    voice: str | None = Field(default=None, max_length=40, description="Voice of spoken replies.")
    wake_name: str | None = Field(
        default=None, min_length=1, max_length=80, description="The name it answers to."
    )
    budget_chf: StrictFloat | None = Field(
        default=None, gt=0, le=MAX_BUDGET_CHF, description="Budget of the whole session."
    )
    knowledge_scopes: list[KnowledgeScope] = Field(
        default_factory=list, max_length=4, description="File scopes the fast path may search."
    )
    chat_webhook_url: AnyHttpUrl | None = Field(
        default=None, description="Replies are also posted here (JSON), through the egress rules."
    )
    operator_ids: list[Annotated[str, Field(min_length=1, max_length=36)]] = Field(
        default_factory=list, max_length=MAX_OPERATORS, description="Users who may direct it."
    )


class DirectiveOut(BaseModel):
    id: str
    kind: DirectiveKind
    text: str
    author_id: str
    created_at: datetime
    withdrawn_at: datetime | None


class MeetingOut(BaseModel):
    id: str
    workflow_id: str
    title: str
    status: str
    languages: list[str]
    voice: str | None
    wake_name: str
    knowledge_scopes: list[str]
    chat_webhook_url: str | None
    operator_ids: list[str]
    budget_chf: float
    spent_chf: float
    summary: str
    created_at: datetime
    ended_at: datetime | None
    directives: list[DirectiveOut]


class UtteranceIn(BaseModel):
    speaker: str = Field(min_length=1, max_length=200)
    text: str = Field(min_length=1)
    at: datetime | None = Field(default=None, description="When it was said.")


class TranscriptIn(BaseModel):
    utterances: list[UtteranceIn] = Field(min_length=1)


class TranscriptAccepted(BaseModel):
    session_id: str
    accepted: int


class DirectiveIn(BaseModel):
    kind: DirectiveKind
    text: str = Field(min_length=1)


def _directive_out(directive: Directive) -> DirectiveOut:
    return DirectiveOut(
        id=directive.id,
        kind=directive.kind,
        text=directive.text,
        author_id=directive.author_id,
        created_at=directive.created_at,
        withdrawn_at=directive.withdrawn_at,
    )


def _meeting_out(record: MeetingRecord, wake_name: str) -> MeetingOut:
    options = record.options
    return MeetingOut(
        id=record.id,
        workflow_id=record.workflow_id,
        title=record.title,
        status=record.status,
        languages=list(options.languages),
        voice=options.voice,
        wake_name=options.wake_name or wake_name,
        knowledge_scopes=list(options.knowledge_scopes),
        chat_webhook_url=options.chat_webhook_url,
        operator_ids=list(options.operator_ids),
        budget_chf=record.budget_chf,
        spent_chf=round(record.spent_chf, 6),
        summary=record.summary,
        created_at=record.created_at,
        ended_at=record.ended_at,
        directives=[_directive_out(d) for d in record.directives],
    )


def _check_length(what: str, text: str, limit: int, setting: str) -> None:
    if len(text) > limit:
        raise InvalidInputError(f"{what} is longer than {limit} characters ({setting})")


@router.post("", status_code=status.HTTP_201_CREATED, responses=problem_responses(404, 503))
async def create_meeting(
    body: MeetingCreate, request: Request, runtime: RuntimeDep, context: ContextDep
) -> MeetingOut:
    service = meeting_service(request, runtime)
    url = str(body.chat_webhook_url) if body.chat_webhook_url else None
    if url is not None:
        await check_saved_target(
            "chat_webhook_url", parse_url(url), webhook_policy(service.settings)
        )
    options = MeetingOptions(
        languages=tuple(dict.fromkeys(body.languages)),
        voice=body.voice,
        wake_name=body.wake_name or "",
        knowledge_scopes=tuple(dict.fromkeys(body.knowledge_scopes)),
        chat_webhook_url=url,
        operator_ids=tuple(dict.fromkeys(body.operator_ids)),
    )
    budget = body.budget_chf or service.settings.meeting_default_budget_chf
    record = await service.create(context, body.title, options, budget)
    return _meeting_out(record, service.settings.meeting_wake_name)


@router.get("/{session_id}", responses=problem_responses(404))
async def get_meeting(
    session_id: str, request: Request, runtime: RuntimeDep, context: ContextDep
) -> MeetingOut:
    service = meeting_service(request, runtime)
    record = await service.get(session_id, context)
    return _meeting_out(record, service.settings.meeting_wake_name)


@router.post(
    "/{session_id}/transcript",
    status_code=status.HTTP_202_ACCEPTED,
    responses=problem_responses(404, 409, 503),
)
async def add_transcript(
    session_id: str, body: TranscriptIn, request: Request, runtime: RuntimeDep, context: ContextDep
) -> TranscriptAccepted:
    """Finished utterances, oldest first; answered asynchronously (see the events)."""
    service = meeting_service(request, runtime)
    settings = service.settings
    if len(body.utterances) > settings.meeting_max_utterances_per_batch:
        raise InvalidInputError(
            f"{len(body.utterances)} utterances in one request; at most "
            f"{settings.meeting_max_utterances_per_batch} "
            "(AGENTUR_MEETING_MAX_UTTERANCES_PER_BATCH)"
        )
    for utterance in body.utterances:
        _check_length(
            "an utterance",
            utterance.text,
            settings.meeting_max_utterance_chars,
            "AGENTUR_MEETING_MAX_UTTERANCE_CHARS",
        )
    heard = [Utterance(u.speaker.strip(), u.text.strip(), u.at) for u in body.utterances]
    await service.hear(session_id, context, heard)
    return TranscriptAccepted(session_id=session_id, accepted=len(heard))


def _sse(event: MeetingEvent) -> str:
    data = json.dumps(event.data, ensure_ascii=False, default=str)
    return f"id: {event.sequence}\nevent: {event.type.value}\ndata: {data}\n\n"


async def _stream(events: AsyncIterator[MeetingEvent]) -> AsyncIterator[str]:
    async for event in events:
        yield _sse(event)


@router.get(
    "/{session_id}/events",
    response_model=None,
    responses={
        200: {
            "description": "What the assistant says: reply, speech, agent_started, "
            "agent_final, error, ended (the stream finishes after `ended`).",
            "content": {"text/event-stream": {"schema": {"type": "string"}}},
        },
        **problem_responses(404),
    },
)
async def meeting_events(
    session_id: str,
    request: Request,
    runtime: RuntimeDep,
    context: ContextDep,
    after: Annotated[int, Query(ge=0, description="Resume after this event id.")] = 0,
    last_event_id: Annotated[str | None, Header()] = None,
) -> StreamingResponse:
    service = meeting_service(request, runtime)
    if last_event_id is not None and last_event_id.strip().isdigit():
        after = max(after, int(last_event_id.strip()))
    events = await service.events(session_id, context, after)
    return StreamingResponse(
        _stream(events), media_type="text/event-stream", headers={"Cache-Control": "no-cache"}
    )


@router.delete("/{session_id}", responses=problem_responses(404, 409))
async def end_meeting(
    session_id: str, request: Request, runtime: RuntimeDep, context: ContextDep
) -> MeetingOut:
    """Ends the session: its summary is written to the meeting's workflow."""
    service = meeting_service(request, runtime)
    await service.end(session_id, context)
    record = await service.get(session_id, context)
    return _meeting_out(record, service.settings.meeting_wake_name)


@router.post(
    "/{session_id}/directives",
    status_code=status.HTTP_201_CREATED,
    responses=problem_responses(404, 409),
)
async def add_directive(
    session_id: str, body: DirectiveIn, request: Request, runtime: RuntimeDep, context: ContextDep
) -> DirectiveOut:
    """Operators only. `one_shot` runs the agent on the text at once (no fast path);
    `persistent` stands in every later fast-path prompt until withdrawn."""
    service = meeting_service(request, runtime)
    _check_length(
        "a directive",
        body.text,
        service.settings.meeting_max_directive_chars,
        "AGENTUR_MEETING_MAX_DIRECTIVE_CHARS",
    )
    directive = await service.add_directive(session_id, context, body.kind, body.text.strip())
    return _directive_out(directive)


@router.delete("/{session_id}/directives/{directive_id}", responses=problem_responses(404))
async def withdraw_directive(
    session_id: str, directive_id: str, request: Request, runtime: RuntimeDep, context: ContextDep
) -> DirectiveOut:
    service = meeting_service(request, runtime)
    return _directive_out(await service.withdraw_directive(session_id, directive_id, context))
