"""/v1/connections — the caller's connections (personal) and their mandate's (shared,
admin-managed). Credentials are write-only: accepted on create and change, never returned."""

from __future__ import annotations

from typing import Annotated, Any, Literal

from fastapi import APIRouter, Depends, Query, status
from fastapi.responses import Response
from pydantic import BaseModel, Field, StrictBool

from agentur.api.dependencies import ContextDep, RuntimeDep, SessionDep
from agentur.api.problems import AUTHENTICATED, problem_responses
from agentur.connections.check_connection import check_connection
from agentur.connections.connection_kind import kind_names
from agentur.connections.kinds import Credentials
from agentur.connections.service import (
    ConnectionChange,
    ConnectionService,
    credentials_box,
    describe,
)
from agentur.names import Name

router = APIRouter(prefix="/connections", tags=["connections"], responses=AUTHENTICATED)


def get_service(runtime: RuntimeDep, session: SessionDep, context: ContextDep) -> ConnectionService:
    box = credentials_box(runtime.settings)
    return ConnectionService(session, context, box, runtime.all_settings.connections)


ServiceDep = Annotated[ConnectionService, Depends(get_service)]


# The schema names the kinds there are, so clients (and schemathesis) see them.
ConnectionKind = Literal[tuple(kind_names())]  # type: ignore[valid-type]


class ConnectionOut(BaseModel):
    id: str
    kind: str
    display_name: str
    shared: bool
    settings: dict[str, Any]
    neutralize: bool
    status: str
    last_error: str | None


class ConnectionCreate(BaseModel):
    kind: ConnectionKind = Field(
        description="What the connection reaches; `settings` follow the kind."
    )
    display_name: Name
    settings: dict[str, Any] = Field(description="The kind's settings (checked per kind).")
    credentials: Credentials = Field(default_factory=Credentials, description="Write-only.")
    shared: StrictBool = Field(default=False, description="For the whole mandate (admins only).")
    neutralize: StrictBool = Field(
        default=False, description="Files taken from here are neutralized."
    )


class ConnectionUpdate(BaseModel):
    display_name: Name | None = None
    settings: dict[str, Any] | None = Field(default=None, description="Merged into the current.")
    credentials: Credentials | None = None
    neutralize: StrictBool | None = None


@router.post("", status_code=status.HTTP_201_CREATED, responses=problem_responses(409))
async def create_connection(request: ConnectionCreate, service: ServiceDep) -> ConnectionOut:
    connection = await service.create(
        request.kind,
        request.display_name,
        request.settings,
        request.credentials,
        shared=request.shared,
        neutralize=request.neutralize,
    )
    await service.commit()
    return ConnectionOut(**describe(connection))


@router.get("")
async def list_connections(
    service: ServiceDep, kind: Annotated[str | None, Query(max_length=32)] = None
) -> list[ConnectionOut]:
    return [ConnectionOut(**describe(c)) for c in await service.list(kind)]


@router.get("/{connection_id}", responses=problem_responses(404))
async def get_connection(connection_id: str, service: ServiceDep) -> ConnectionOut:
    return ConnectionOut(**describe(await service.get(connection_id)))


@router.patch("/{connection_id}", responses=problem_responses(404, 409))
async def change_connection(
    connection_id: str, request: ConnectionUpdate, service: ServiceDep
) -> ConnectionOut:
    change = ConnectionChange(
        display_name=request.display_name,
        settings=request.settings,
        credentials=request.credentials,
        neutralize=request.neutralize,
    )
    connection = await service.change(connection_id, change)
    await service.commit()
    return ConnectionOut(**describe(connection))


@router.delete(
    "/{connection_id}",
    status_code=status.HTTP_204_NO_CONTENT,
    responses=problem_responses(404),
)
async def delete_connection(connection_id: str, service: ServiceDep) -> Response:
    await service.delete(connection_id)
    await service.commit()
    return Response(status_code=status.HTTP_204_NO_CONTENT)


@router.post("/{connection_id}/test", responses=problem_responses(404))
async def test_connection(connection_id: str, service: ServiceDep) -> ConnectionOut:
    """Reach the server and log in (nothing is sent); the outcome is stored as the status."""
    connection = await service.get(connection_id)
    await check_connection(service, connection, service.settings.connection_timeout_seconds)
    await service.commit()
    return ConnectionOut(**describe(connection))
