"""/v1/assistants — configuration of visitor assistants (mandate API keys only).

The whole definition in one `POST`, sub-resources for FAQs, flows, help desks and the API
catalog, publishable visitor keys, the replay label set and the pre-flight decision log.
Publishable keys are refused here (they only authenticate the conversation routes).
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

from fastapi import APIRouter, Depends, Query, Response, status
from pydantic import BaseModel

from agentur.api.assistant_dependencies import CredentialsBoxDep
from agentur.api.dependencies import ContextDep, SessionDep
from agentur.assistant.assistant_service import AssistantService, Part, assistant_view
from agentur.assistant.conversation_store import ConversationStore
from agentur.assistant.definition import ApiCatalog, AssistantDefinition

router = APIRouter(prefix="/assistants", tags=["assistants"])


def get_service(
    session: SessionDep, context: ContextDep, box: CredentialsBoxDep
) -> AssistantService:
    return AssistantService(session, context, box)


ServiceDep = Annotated[AssistantService, Depends(get_service)]
PartName = Literal["faqs", "flows", "help-desks"]
PARTS: dict[str, Part] = {"faqs": "faqs", "flows": "flows", "help-desks": "help_desks"}


class VisitorKeyOut(BaseModel):
    id: str
    key: str


@router.post("", status_code=status.HTTP_201_CREATED)
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
    offset: Annotated[int, Query(ge=0)] = 0,
) -> list[dict[str, Any]]:
    return [assistant_view(row) for row in await service.list(limit, offset)]


@router.get("/{assistant_id}")
async def get_assistant(assistant_id: str, service: ServiceDep) -> dict[str, Any]:
    return assistant_view(await service.get(assistant_id))


@router.put("/{assistant_id}")
async def replace_assistant(
    assistant_id: str, definition: AssistantDefinition, service: ServiceDep, session: SessionDep
) -> dict[str, Any]:
    row = await service.replace(assistant_id, definition)
    await session.commit()
    return assistant_view(row)


@router.delete("/{assistant_id}", status_code=status.HTTP_204_NO_CONTENT)
async def delete_assistant(assistant_id: str, service: ServiceDep, session: SessionDep) -> Response:
    await service.delete(assistant_id)
    await session.commit()
    return Response(status_code=status.HTTP_204_NO_CONTENT)


@router.put("/{assistant_id}/api-catalog")
async def put_api_catalog(
    assistant_id: str, catalog: ApiCatalog, service: ServiceDep, session: SessionDep
) -> dict[str, Any]:
    row = await service.put_catalog(assistant_id, catalog)
    await session.commit()
    return assistant_view(row)["api_catalog"]


@router.delete("/{assistant_id}/api-catalog", status_code=status.HTTP_204_NO_CONTENT)
async def delete_api_catalog(
    assistant_id: str, service: ServiceDep, session: SessionDep
) -> Response:
    await service.put_catalog(assistant_id, None)
    await session.commit()
    return Response(status_code=status.HTTP_204_NO_CONTENT)


@router.post("/{assistant_id}/visitor-keys", status_code=status.HTTP_201_CREATED)
async def issue_visitor_key(
    assistant_id: str, service: ServiceDep, session: SessionDep
) -> VisitorKeyOut:
    key_id, key = await service.issue_visitor_key(assistant_id)
    await session.commit()
    return VisitorKeyOut(id=key_id, key=key)


@router.delete("/{assistant_id}/visitor-keys/{key_id}", status_code=status.HTTP_204_NO_CONTENT)
async def revoke_visitor_key(
    assistant_id: str, key_id: str, service: ServiceDep, session: SessionDep
) -> Response:
    await service.revoke_visitor_key(assistant_id, key_id)
    await session.commit()
    return Response(status_code=status.HTTP_204_NO_CONTENT)


class LabelIn(BaseModel):
    text: str
    expected: str | None = (
        None  # a decision label: "faq:<id>", "flow:<id>", "person:<desk>", "none"
    )


@router.put("/{assistant_id}/labels", status_code=status.HTTP_204_NO_CONTENT)
async def put_labels(
    assistant_id: str, labels: list[LabelIn] | None, service: ServiceDep, session: SessionDep
) -> Response:
    await service.set_labels(
        assistant_id, [label.model_dump() for label in labels] if labels else None
    )
    await session.commit()
    return Response(status_code=status.HTTP_204_NO_CONTENT)


@router.get("/{assistant_id}/decisions")
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


@router.get("/{assistant_id}/{part}")
async def list_items(
    assistant_id: str, part: PartName, service: ServiceDep
) -> list[dict[str, Any]]:
    return await service.items(assistant_id, PARTS[part])


@router.post("/{assistant_id}/{part}", status_code=status.HTTP_201_CREATED)
async def add_item(
    assistant_id: str,
    part: PartName,
    item: dict[str, Any],
    service: ServiceDep,
    session: SessionDep,
) -> dict[str, Any]:
    stored = await service.put_item(assistant_id, PARTS[part], item)
    await session.commit()
    return stored


@router.put("/{assistant_id}/{part}/{item_id}")
async def replace_item(
    assistant_id: str,
    part: PartName,
    item_id: str,
    item: dict[str, Any],
    service: ServiceDep,
    session: SessionDep,
) -> dict[str, Any]:
    stored = await service.put_item(assistant_id, PARTS[part], item, item_id)
    await session.commit()
    return stored


@router.delete("/{assistant_id}/{part}/{item_id}", status_code=status.HTTP_204_NO_CONTENT)
async def delete_item(
    assistant_id: str, part: PartName, item_id: str, service: ServiceDep, session: SessionDep
) -> Response:
    await service.delete_item(assistant_id, PARTS[part], item_id)
    await session.commit()
    return Response(status_code=status.HTTP_204_NO_CONTENT)
