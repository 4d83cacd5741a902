"""/v1/folders — each member's own folder tree."""

from __future__ import annotations

from datetime import datetime
from typing import Annotated

from fastapi import APIRouter, Query, status
from fastapi.responses import Response
from pydantic import BaseModel

from agentur.api.dependencies import FileServiceDep, FolderServiceDep, SessionDep
from agentur.api.parameters import FolderName
from agentur.api.problems import AUTHENTICATED, problem_responses
from agentur.storage.models import Folder

router = APIRouter(prefix="/folders", tags=["folders"], responses=AUTHENTICATED)
NOT_FOUND_OR_CONFLICT = problem_responses(404, 409)


class FolderOut(BaseModel):
    id: str
    name: str
    parent_id: str | None
    created_at: datetime
    updated_at: datetime


class FolderCreate(BaseModel):
    name: FolderName
    parent_id: str | None = None


class FolderChange(BaseModel):
    """Any subset; `parent_id: null` moves to the top level."""

    name: FolderName | None = None
    parent_id: str | None = None


def _out(folder: Folder) -> FolderOut:
    return FolderOut(
        id=folder.id,
        name=folder.name,
        parent_id=folder.parent_id,
        created_at=folder.created_at,
        updated_at=folder.updated_at,
    )


@router.get("", responses=problem_responses(404))
async def list_folders(
    service: FolderServiceDep, parent_id: Annotated[str | None, Query()] = None
) -> list[FolderOut]:
    return [_out(folder) for folder in await service.list(parent_id)]


@router.post("", status_code=status.HTTP_201_CREATED, responses=NOT_FOUND_OR_CONFLICT)
async def create_folder(
    request: FolderCreate, service: FolderServiceDep, session: SessionDep
) -> FolderOut:
    folder = await service.create(request.name, request.parent_id)
    await session.commit()
    return _out(folder)


@router.patch("/{folder_id}", responses=NOT_FOUND_OR_CONFLICT)
async def change_folder(
    folder_id: str, change: FolderChange, service: FolderServiceDep, session: SessionDep
) -> FolderOut:
    folder = await service.get(folder_id)
    if "parent_id" in change.model_fields_set:
        folder = await service.move(folder_id, change.parent_id)
    if change.name is not None:
        folder = await service.rename(folder_id, change.name)
    await session.commit()
    return _out(folder)


@router.delete(
    "/{folder_id}", status_code=status.HTTP_204_NO_CONTENT, responses=NOT_FOUND_OR_CONFLICT
)
async def delete_folder(
    folder_id: str,
    service: FolderServiceDep,
    files: FileServiceDep,
    session: SessionDep,
    recursive: bool = False,
) -> Response:
    """Refuses a non-empty folder (409) unless `recursive=true`."""
    removed_hashes = await service.delete(folder_id, recursive=recursive)
    files.release_blobs(removed_hashes)
    await files.commit()
    return Response(status_code=status.HTTP_204_NO_CONTENT)
