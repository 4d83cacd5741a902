"""Folder tools, through `FolderService` like the HTTP API: only the caller's own tree."""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, Field

from agentur.storage.models import Folder
from agentur.tools.tool import Tool, ToolContext
from agentur.tools.workspace_access import change_folders, file_service, folder_service


def describe(folder: Folder) -> dict[str, Any]:
    return {"folder_id": folder.id, "name": folder.name, "parent_id": folder.parent_id}


class ListFoldersArguments(BaseModel):
    parent_id: str | None = Field(default=None, description="null or 'root' for the top level.")


async def list_folders(args: ListFoldersArguments, context: ToolContext) -> dict[str, Any]:
    async with folder_service(context) as folders:
        return {"folders": [describe(f) for f in await folders.list(args.parent_id)]}


class CreateFolderArguments(BaseModel):
    name: str
    parent_id: str | None = None


async def create_folder(args: CreateFolderArguments, context: ToolContext) -> dict[str, Any]:
    return describe(await change_folders(context, lambda f: f.create(args.name, args.parent_id)))


class DeleteFolderArguments(BaseModel):
    folder_id: str
    recursive: bool = Field(
        default=False, description="Also delete subfolders and files; otherwise it must be empty."
    )


async def delete_folder(args: DeleteFolderArguments, context: ToolContext) -> dict[str, Any]:
    # The file service owns blob cleanup; its folder service deletes inside the same session.
    async with file_service(context) as files:
        released = await files.folders.delete(args.folder_id, recursive=args.recursive)
        files.release_blobs(released)
        await files.commit()
    return {"deleted": True, "folder_id": args.folder_id, "deleted_files": len(released)}


class RenameFolderArguments(BaseModel):
    folder_id: str
    new_name: str


async def rename_folder(args: RenameFolderArguments, context: ToolContext) -> dict[str, Any]:
    folder = await change_folders(context, lambda f: f.rename(args.folder_id, args.new_name))
    return describe(folder)


class MoveFolderArguments(BaseModel):
    folder_id: str
    parent_id: str | None = Field(description="New parent; null or 'root' for the top level.")


async def move_folder(args: MoveFolderArguments, context: ToolContext) -> dict[str, Any]:
    folder = await change_folders(context, lambda f: f.move(args.folder_id, args.parent_id))
    return describe(folder)


TOOLS: list[Tool] = [
    Tool("list_folders", "List your folders under a parent.", ListFoldersArguments,
         list_folders, read_only=True),
    Tool("create_folder", "Create a folder.", CreateFolderArguments, create_folder),
    Tool("delete_folder", "Delete a folder; recursive=true also deletes its content.",
         DeleteFolderArguments, delete_folder),
    Tool("rename_folder", "Rename a folder.", RenameFolderArguments, rename_folder),
    Tool("move_folder", "Move a folder under another parent.", MoveFolderArguments, move_folder),
]  # fmt: skip
