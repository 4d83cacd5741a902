"""/v1/files — upload, list, metadata, download, windowed content, change, copy, delete."""

from __future__ import annotations

from collections.abc import AsyncIterator
from datetime import datetime
from email.message import Message as MimeHeaders
from typing import Annotated
from urllib.parse import quote

from fastapi import APIRouter, File, Form, Query, UploadFile, status
from fastapi.responses import Response, StreamingResponse
from pydantic import BaseModel, Field

from agentur.api.dependencies import FileServiceDep
from agentur.api.parameters import FileName, Offset, TagFilter, Tags, UploadTags
from agentur.api.problems import AUTHENTICATED, problem_responses
from agentur.errors import InvalidInputError
from agentur.setting_limits import limit_from_setting
from agentur.storage.models import ROOT_FOLDER_KEY
from agentur.storage.models import File as FileRow
from agentur.storage.paging import MAX_OFFSET
from agentur.workspace.file_listing import ListedFile
from agentur.workspace.files import FileService, OnConflict
from agentur.workspace.scopes import Scope

UPLOAD_CHUNK = 1024 * 1024


# The upload limit is enforced before the body is read (agentur.api.backpressure.body_limits)
# and exactly on the file's bytes by the blob store.
router = APIRouter(prefix="/files", tags=["files"], responses=AUTHENTICATED)
NOT_FOUND = problem_responses(404)
NOT_FOUND_OR_CONFLICT = problem_responses(404, 409)


class FileOut(BaseModel):
    id: str
    name: str
    folder_id: str | None
    scope: Scope
    tags: list[str]
    neutralize: bool
    size: int
    mime_type: str
    sha256: str
    owner_id: str
    mandate_id: str
    feature_instance_id: str | None
    created_at: datetime
    updated_at: datetime


class FileListOut(BaseModel):
    items: list[FileOut]
    total: int
    limit: int
    offset: int


class ContentWindowOut(BaseModel):
    content: str
    offset: int
    limit: int
    total_length: int
    next_offset: int | None = Field(description="Offset of the next window; null at the end.")


class FileChange(BaseModel):
    """Any subset; `folder_id: null` moves to the top level. Applied together or not at all."""

    name: FileName | None = None
    folder_id: str | None = None
    tags: Tags | None = None


class FileCopy(BaseModel):
    folder_id: str | None = None
    name: FileName | None = None


def to_out(file: FileRow | ListedFile, tags: list[str]) -> FileOut:
    return FileOut(
        id=file.id,
        name=file.name,
        folder_id=file.folder_id,
        scope=file.scope,  # type: ignore[arg-type]  # validation makes it a Scope (no Enum call)
        tags=tags,
        neutralize=file.neutralize,
        size=file.size,
        mime_type=file.mime_type,
        sha256=file.sha256,
        owner_id=file.owner_id,
        mandate_id=file.mandate_id,
        feature_instance_id=file.feature_instance_id,
        created_at=file.created_at,
        updated_at=file.updated_at,
    )


async def _out(service: FileService, file: FileRow) -> FileOut:
    return to_out(file, (await service.tags_of([file.id]))[file.id])


def _split_tags(values: list[str]) -> list[str]:
    return [tag for value in values for tag in value.split(",")]


def sent_file_name(upload: UploadFile) -> str | None:
    """The upload's file name, or the path the client sent in its place.

    python-multipart quietly turns an old-browser full path (`C:\\dir\\x.txt`) into its last
    part, while any other name with a separator is refused; a path is refused alike here."""
    headers = MimeHeaders()
    headers["content-disposition"] = upload.headers.get("content-disposition", "")
    sent = headers.get_filename()
    if sent and ("\\" in sent or "/" in sent):
        return sent  # validate_name refuses it with the usual message
    return upload.filename


@router.post(
    "",
    status_code=status.HTTP_201_CREATED,
    responses=problem_responses(404, 409, 413),
)
async def upload_file(
    service: FileServiceDep,
    file: Annotated[UploadFile, File(description="The file's bytes.")],
    folder_id: Annotated[str | None, Form()] = None,
    tags: Annotated[UploadTags, Form(description="Tags; repeat or comma-separate.")] = [],  # noqa: B006
    scope: Annotated[Scope, Form()] = Scope.personal,
    neutralize: Annotated[bool, Form()] = False,
    on_conflict: Annotated[OnConflict, Form()] = OnConflict.rename,
    name: Annotated[
        FileName | None, Form(description="Stored name; default the upload's file name.")
    ] = None,
) -> FileOut:
    file_name = name or sent_file_name(file)
    if not file_name:
        raise InvalidInputError("the upload has no file name; send one or set 'name'")

    async def chunks() -> AsyncIterator[bytes]:
        while chunk := await file.read(UPLOAD_CHUNK):
            yield chunk

    stored = await service.upload(
        file_name,
        chunks(),
        folder_id=folder_id or None,
        tags=_split_tags(tags),
        scope=scope,
        neutralize=neutralize,
        mime_type=file.content_type,
        on_conflict=on_conflict,
    )
    result = await _out(service, stored)
    await service.commit()
    return result


@router.get("", responses=NOT_FOUND)
async def list_files(
    service: FileServiceDep,
    folder_id: Annotated[
        str | None, Query(description=f"A folder id, or '{ROOT_FOLDER_KEY}' for the top level.")
    ] = None,
    tag: Annotated[TagFilter, Query(description="Only files with all these tags.")] = [],  # noqa: B006
    search: Annotated[str | None, Query(max_length=200, description="Part of the name.")] = None,
    scope: Scope | None = None,
    limit: Annotated[int, Query(ge=1, le=1000)] = 100,
    offset: Offset = 0,
) -> FileListOut:
    listing = await service.list(
        folder_id=folder_id, tags=tag, search=search, scope=scope, limit=limit, offset=offset
    )
    return FileListOut(
        items=[to_out(f, listing.tags[f.id]) for f in listing.files],
        total=listing.total,
        limit=limit,
        offset=offset,
    )


@router.get("/{file_id}", responses=NOT_FOUND)
async def get_file(file_id: str, service: FileServiceDep) -> FileOut:
    return await _out(service, await service.get(file_id))


@router.get(
    "/{file_id}/download",
    response_class=StreamingResponse,
    responses={
        200: {
            "description": "The file's bytes, with its own media type.",
            "content": {"*/*": {"schema": {"type": "string", "format": "binary"}}},
        },
        **NOT_FOUND,
    },
)
async def download_file(file_id: str, service: FileServiceDep) -> StreamingResponse:
    file = await service.get(file_id)
    return StreamingResponse(
        service.blobs.iter_bytes(file.sha256),
        media_type=file.mime_type,
        headers={
            "Content-Disposition": f"attachment; filename*=UTF-8''{quote(file.name)}",
            "Content-Length": str(file.size),
            "ETag": f'"{file.sha256}"',
        },
    )


@router.get("/{file_id}/content", responses=NOT_FOUND)
async def read_file_content(
    file_id: str,
    service: FileServiceDep,
    offset: Annotated[
        int, Query(ge=0, le=MAX_OFFSET, description="First character (code point).")
    ] = 0,
    limit: Annotated[
        int | None,
        Query(
            ge=1,
            description="Characters to return (at most AGENTUR_MAX_READ_WINDOW).",
            json_schema_extra=limit_from_setting("max_read_window"),
        ),
    ] = None,
) -> ContentWindowOut:
    """A window of a text file: never silently truncated — `total_length` tells the rest."""
    result = await service.read_window(file_id, offset, limit)
    return ContentWindowOut(
        content=result.content,
        offset=result.offset,
        limit=result.limit,
        total_length=result.total_length,
        next_offset=result.next_offset,
    )


@router.patch("/{file_id}", responses=NOT_FOUND_OR_CONFLICT)
async def change_file(file_id: str, change: FileChange, service: FileServiceDep) -> FileOut:
    """Rename, move and tag in one request; a conflict leaves the file unchanged."""
    file = await service.get(file_id)
    if "folder_id" in change.model_fields_set:
        file = await service.move(file_id, change.folder_id)
    if change.name is not None:
        file = await service.rename(file_id, change.name)
    if change.tags is not None:
        await service.set_tags(file_id, change.tags)
    result = await _out(service, file)
    await service.commit()
    return result


@router.post(
    "/{file_id}/copy", status_code=status.HTTP_201_CREATED, responses=NOT_FOUND_OR_CONFLICT
)
async def copy_file(file_id: str, request: FileCopy, service: FileServiceDep) -> FileOut:
    copy = await service.copy(file_id, folder_id=request.folder_id, name=request.name)
    result = await _out(service, copy)
    await service.commit()
    return result


@router.delete("/{file_id}", status_code=status.HTTP_204_NO_CONTENT, responses=NOT_FOUND)
async def delete_file(file_id: str, service: FileServiceDep) -> Response:
    await service.delete(file_id)
    await service.commit()
    return Response(status_code=status.HTTP_204_NO_CONTENT)
