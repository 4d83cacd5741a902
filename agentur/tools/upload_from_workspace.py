"""`upload_from_workspace`: a workspace file written to a path of a WebDAV data source."""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, Field

from agentur.connections.webdav_client import upload
from agentur.tools.connection_access import source_connection
from agentur.tools.tool import Tool, ToolContext
from agentur.tools.workspace_access import file_service


class UploadFromWorkspaceArguments(BaseModel):
    connection_id: str | None = None
    file_id: str
    path: str = Field(min_length=1, max_length=2000, description="Target path in the source.")


async def upload_from_workspace(
    args: UploadFromWorkspaceArguments, context: ToolContext
) -> dict[str, Any]:
    source = await source_connection(context, args.connection_id)
    async with file_service(context) as files:
        file, data = await files.read_bytes(args.file_id)
    status = await upload(source.access, args.path, data, file.mime_type)
    return {
        "uploaded": True,
        "file_id": file.id,
        "path": args.path,
        "size": len(data),
        "http_status": status,
    }


TOOLS: list[Tool] = [
    Tool("upload_from_workspace", "Write a workspace file to a path in a connected data "
         "source (replaces a file there).",
         UploadFromWorkspaceArguments, upload_from_workspace, toolbox="datasources",
         is_action=True),
]  # fmt: skip
