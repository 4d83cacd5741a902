"""/v1/workflows — conversation containers and their messages (the caller's own)."""

from __future__ import annotations

from datetime import datetime
from typing import Annotated, Any

from fastapi import APIRouter, Query, status
from pydantic import BaseModel

from agentur.api.dependencies import SessionDep, WorkflowServiceDep
from agentur.api.parameters import Offset
from agentur.api.problems import AUTHENTICATED, problem_responses
from agentur.names import OptionalName

router = APIRouter(prefix="/workflows", tags=["workflows"], responses=AUTHENTICATED)


class WorkflowCreate(BaseModel):
    title: OptionalName = ""


class WorkflowOut(BaseModel):
    id: str
    title: str
    created_at: datetime
    updated_at: datetime


class MessageOut(BaseModel):
    id: str
    sequence: int
    role: str
    content: str
    data: dict[str, Any] | None
    created_at: datetime


class MessagesOut(BaseModel):
    items: list[MessageOut]
    total: int
    offset: int
    limit: int


@router.post("", status_code=status.HTTP_201_CREATED)
async def create_workflow(
    request: WorkflowCreate, service: WorkflowServiceDep, session: SessionDep
) -> WorkflowOut:
    workflow = await service.create(request.title)
    await session.commit()
    return WorkflowOut.model_validate(workflow, from_attributes=True)


@router.get("")
async def list_workflows(
    service: WorkflowServiceDep,
    limit: Annotated[int, Query(ge=1, le=500)] = 50,
    offset: Offset = 0,
) -> list[WorkflowOut]:
    return [
        WorkflowOut.model_validate(w, from_attributes=True)
        for w in await service.list(limit=limit, offset=offset)
    ]


@router.get("/{workflow_id}/messages", responses=problem_responses(404))
async def list_messages(
    workflow_id: str,
    service: WorkflowServiceDep,
    limit: Annotated[int, Query(ge=1, le=500)] = 100,
    offset: Offset = 0,
) -> MessagesOut:
    messages, total = await service.messages(workflow_id, offset=offset, limit=limit)
    return MessagesOut(
        items=[MessageOut.model_validate(m, from_attributes=True) for m in messages],
        total=total,
        offset=offset,
        limit=limit,
    )
