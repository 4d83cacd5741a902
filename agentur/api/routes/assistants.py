"""/v1/assistants — configuration of visitor assistants (mandate API keys only).

The whole definition in one `POST`, sub-resources for FAQs, flows, help desks and the API
catalog, publishable visitor keys, the replay label set and the pre-flight decision log.
Publishable keys are refused here (they only authenticate the conversation routes).
"""

from __future__ import annotations

from datetime import datetime
from typing import Annotated, Any

from fastapi import APIRouter, Body, Depends, Query, Response, status
from pydantic import BaseModel, Field

from agentur.api.assistant_dependencies import AssistantSettingsDep, CredentialsBoxDep
from agentur.api.dependencies import ContextDep, SessionDep
from agentur.api.parameters import Offset
from agentur.api.problems import AUTHENTICATED, problem_responses
from agentur.assistant.assistant_service import AssistantService, Part, assistant_view
from agentur.assistant.conversation_store import ConversationStore
from agentur.assistant.definition import ApiCatalog, AssistantDefinition, Faq, Flow, HelpDesk
from agentur.egress.settings import allowed_hosts
from agentur.errors import NotFoundError

router = APIRouter(prefix="/assistants", tags=["assistants"], responses=AUTHENTICATED)
NOT_FOUND = problem_responses(404)
MAX_LABELS = 10_000


def get_service(
    session: SessionDep, context: ContextDep, box: CredentialsBoxDep, settings: AssistantSettingsDep
) -> AssistantService:
    return AssistantService(session, context, box, settings.api_limits(allowed_hosts()).egress)


ServiceDep = Annotated[AssistantService, Depends(get_service)]


class VisitorKeyOut(BaseModel):
    id: str
    key: str


@router.post("", status_code=status.HTTP_201_CREATED, responses=problem_responses(404))
async def create_assistant(
    definition: AssistantDefinition, service: ServiceDep, session: SessionDep
) -> dict[str, Any]:
    row = await service.create(definition)
    await session.commit()
    return assistant_view(row)


@router.get("")
async def list_assistants(
    service: ServiceDep,
    limit: Annotated[int, Query(ge=1, le=500)] = 50,
    offset: Offset = 0,
) -> list[dict[str, Any]]:
    return [assistant_view(row) for row in await service.list(limit, offset)]


@router.get("/{assistant_id}", responses=NOT_FOUND)
async def get_assistant(assistant_id: str, service: ServiceDep) -> dict[str, Any]:
    return assistant_view(await service.get(assistant_id))


@router.put("/{assistant_id}", responses=NOT_FOUND)
async def replace_assistant(
    assistant_id: str, definition: AssistantDefinition, service: ServiceDep, session: SessionDep
) -> dict[str, Any]:
    row = await service.replace(assistant_id, definition)
    await session.commit()
    return assistant_view(row)


@router.delete("/{assistant_id}", status_code=status.HTTP_204_NO_CONTENT, responses=NOT_FOUND)
async def delete_assistant(assistant_id: str, service: ServiceDep, session: SessionDep) -> Response:
    await service.delete(assistant_id)
    await session.commit()
    return Response(status_code=status.HTTP_204_NO_CONTENT)


@router.put("/{assistant_id}/api-catalog", responses=NOT_FOUND)
async def put_api_catalog(
    assistant_id: str, catalog: ApiCatalog, service: ServiceDep, session: SessionDep
) -> dict[str, Any]:
    row = await service.put_catalog(assistant_id, catalog)
    await session.commit()
    return assistant_view(row)["api_catalog"]


@router.delete(
    "/{assistant_id}/api-catalog", status_code=status.HTTP_204_NO_CONTENT, responses=NOT_FOUND
)
async def delete_api_catalog(
    assistant_id: str, service: ServiceDep, session: SessionDep
) -> Response:
    await service.put_catalog(assistant_id, None)
    await session.commit()
    return Response(status_code=status.HTTP_204_NO_CONTENT)


@router.post(
    "/{assistant_id}/visitor-keys", status_code=status.HTTP_201_CREATED, responses=NOT_FOUND
)
async def issue_visitor_key(
    assistant_id: str, service: ServiceDep, session: SessionDep
) -> VisitorKeyOut:
    key_id, key = await service.issue_visitor_key(assistant_id)
    await session.commit()
    return VisitorKeyOut(id=key_id, key=key)


@router.delete(
    "/{assistant_id}/visitor-keys/{key_id}",
    status_code=status.HTTP_204_NO_CONTENT,
    responses=NOT_FOUND,
)
async def revoke_visitor_key(
    assistant_id: str, key_id: str, service: ServiceDep, session: SessionDep
) -> Response:
    await service.revoke_visitor_key(assistant_id, key_id)
    await session.commit()
    return Response(status_code=status.HTTP_204_NO_CONTENT)


class LabelIn(BaseModel):
    text: str = Field(max_length=10_000)
    # a decision label: "faq:<id>", "flow:<id>", "person:<desk>", "none"
    expected: str | None = Field(default=None, max_length=300)


@router.put("/{assistant_id}/labels", status_code=status.HTTP_204_NO_CONTENT, responses=NOT_FOUND)
async def put_labels(
    assistant_id: str,
    labels: Annotated[list[LabelIn] | None, Body(max_length=MAX_LABELS)],
    service: ServiceDep,
    session: SessionDep,
) -> Response:
    await service.set_labels(
        assistant_id, [label.model_dump() for label in labels] if labels else None
    )
    await session.commit()
    return Response(status_code=status.HTTP_204_NO_CONTENT)


@router.get("/{assistant_id}/decisions", responses=NOT_FOUND)
async def list_decisions(
    assistant_id: str,
    service: ServiceDep,
    session: SessionDep,
    context: ContextDep,
    limit: Annotated[int, Query(ge=1, le=500)] = 100,
) -> list[dict[str, Any]]:
    row = await service.get(assistant_id)
    decisions = await ConversationStore(session, context.mandate_id, row.id).decisions(limit)
    return [
        {
            "id": d.id,
            "mode": d.mode,
            "message": d.message,
            "decision": d.decision,
            "acted": d.acted,
            "answers": d.answers,
            "conversation_id": d.conversation_id,
            "replay_id": d.replay_id,
            "created_at": d.created_at,
        }
        for d in decisions
    ]


class ReplayOut(BaseModel):
    id: str
    created_at: datetime
    total: int
    changed: int  # decisions that differ from the previous replay
    mismatched: int  # decisions that differ from their label
    # [{text, decision, previous, expected}] in label-set order
    results: list[dict[str, Any]]


@router.get("/{assistant_id}/replays/latest", responses=NOT_FOUND)
async def latest_replay(
    assistant_id: str, service: ServiceDep, session: SessionDep, context: ContextDep
) -> ReplayOut:
    """The last replay of the label set: what the web app shows beside the decisions."""
    row = await service.get(assistant_id)
    replay = await ConversationStore(session, context.mandate_id, row.id).latest_replay()
    if replay is None:
        raise NotFoundError(f"assistant {assistant_id} has no replay yet")
    return ReplayOut.model_validate(replay, from_attributes=True)


def _part_routes(path: str, part: Part, model: type[BaseModel]) -> None:
    """List, add, replace and delete one kind of item; each kind has its own body schema."""
    item_type = Annotated[model, Body(description="The item; `id` is optional when adding.")]  # type: ignore[valid-type]

    async def list_items(assistant_id: str, service: ServiceDep) -> list[dict[str, Any]]:
        return await service.items(assistant_id, part)

    async def add_item(
        assistant_id: str, item: BaseModel, service: ServiceDep, session: SessionDep
    ) -> dict[str, Any]:
        stored = await service.put_item(assistant_id, part, item.model_dump(mode="json"))
        await session.commit()
        return stored

    async def replace_item(
        assistant_id: str, item_id: str, item: BaseModel, service: ServiceDep, session: SessionDep
    ) -> dict[str, Any]:
        data = item.model_dump(mode="json", exclude={"id"})
        stored = await service.put_item(assistant_id, part, data, item_id)
        await session.commit()
        return stored

    async def delete_item(
        assistant_id: str, item_id: str, service: ServiceDep, session: SessionDep
    ) -> Response:
        await service.delete_item(assistant_id, part, item_id)
        await session.commit()
        return Response(status_code=status.HTTP_204_NO_CONTENT)

    # The body type differs per kind, so it is set here rather than written in the signature.
    add_item.__annotations__["item"] = replace_item.__annotations__["item"] = item_type
    one = f"/{{assistant_id}}/{path}/{{item_id}}"
    every = f"/{{assistant_id}}/{path}"
    router.get(every, responses=NOT_FOUND, name=f"list_{part}")(list_items)
    router.post(every, status_code=201, responses=NOT_FOUND, name=f"add_{part}")(add_item)
    router.put(one, responses=NOT_FOUND, name=f"replace_{part}")(replace_item)
    router.delete(one, status_code=204, responses=NOT_FOUND, name=f"delete_{part}")(delete_item)


_part_routes("faqs", "faqs", Faq)
_part_routes("flows", "flows", Flow)
_part_routes("help-desks", "help_desks", HelpDesk)
