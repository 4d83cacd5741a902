"""How tools reach workspace and workflow services: the same services, with the same tenant
checks, as the HTTP API — built from the run's request context, never from model arguments."""

from __future__ import annotations

from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import asynccontextmanager
from typing import TypeVar

from agentur.storage.models import File
from agentur.tools.tool import ToolContext
from agentur.workflows.service import WorkflowService
from agentur.workspace.files import FileService
from agentur.workspace.folders import FolderService

Changed = TypeVar("Changed")


@asynccontextmanager
async def file_service(context: ToolContext) -> AsyncIterator[FileService]:
    """A FileService on its own session. Writers call `service.commit()` before returning."""
    runtime = context.runtime
    async with runtime.database.session() as session:
        yield FileService(session, runtime.blobs, context.request, runtime.workspace_limits)


@asynccontextmanager
async def folder_service(context: ToolContext) -> AsyncIterator[FolderService]:
    runtime = context.runtime
    async with runtime.database.session() as session:
        yield FolderService(session, context.request, runtime.settings.max_name_length)


@asynccontextmanager
async def workflow_service(context: ToolContext) -> AsyncIterator[WorkflowService]:
    async with context.runtime.database.session() as session:
        yield WorkflowService(session, context.request)


async def _one_chunk(data: bytes) -> AsyncIterator[bytes]:
    yield data


async def save_bytes(
    context: ToolContext,
    name: str,
    data: bytes,
    *,
    folder_id: str | None,
    neutralize: bool,
    mime_type: str | None = None,
) -> File:
    """Bytes from outside (an attachment, a data-source file) stored as a workspace file, exactly
    like an upload — so it is indexed like one — carrying its source's `neutralize` duty."""
    async with file_service(context) as files:
        file = await files.upload(
            name, _one_chunk(data), folder_id=folder_id, neutralize=neutralize, mime_type=mime_type
        )
        await files.commit()
        return file


async def shown_text(context: ToolContext, file: File, text: str) -> str:
    """Text of `file` as the model may see it: a file marked `neutralize` (or taken from a
    connection marked so) has its personal data replaced by the workflow's placeholders."""
    if not file.neutralize:
        return text
    return await context.runtime.ai.neutralize_text(
        text, context.request, workflow_id=context.workflow_id
    )


async def change_files(
    context: ToolContext, change: Callable[[FileService], Awaitable[Changed]]
) -> Changed:
    """One change through a FileService, committed (which also releases unreferenced blobs)."""
    async with file_service(context) as files:
        changed = await change(files)
        await files.commit()
        return changed


async def store_file(context: ToolContext, name: str, data: bytes, mime_type: str) -> File:
    """A new workspace file holding `data` (a free name is chosen if `name` is taken)."""

    async def one_chunk() -> AsyncIterator[bytes]:
        yield data

    return await change_files(
        context, lambda files: files.upload(name, one_chunk(), mime_type=mime_type)
    )


async def change_folders(
    context: ToolContext, change: Callable[[FolderService], Awaitable[Changed]]
) -> Changed:
    """One change through a FolderService, committed."""
    async with folder_service(context) as folders:
        changed = await change(folders)
        await folders.session.commit()
        return changed
