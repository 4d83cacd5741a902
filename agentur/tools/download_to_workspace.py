"""`download_to_workspace`: a data-source file becomes a workspace file (indexed like any
upload). It inherits the source's `neutralize` flag, so no model sees its personal data."""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Any

from pydantic import BaseModel, Field

from agentur.connections.webdav_client import download
from agentur.tools.connection_access import source_connection
from agentur.tools.tool import Tool, ToolContext
from agentur.tools.workspace_access import file_service
from agentur.tools.workspace_files import describe


class DownloadToWorkspaceArguments(BaseModel):
    connection_id: str | None = None
    path: str = Field(min_length=1, max_length=2000, description="The file in the source.")
    folder_id: str | None = Field(default=None, description="Workspace folder; default top.")
    name: str | None = Field(default=None, description="File name; default the source's.")


async def _chunk(data: bytes) -> AsyncIterator[bytes]:
    yield data


async def download_to_workspace(
    args: DownloadToWorkspaceArguments, context: ToolContext
) -> dict[str, Any]:
    source = await source_connection(context, args.connection_id)
    data, source_name = await download(source.access, args.path)
    async with file_service(context) as files:
        file = await files.upload(
            args.name or source_name,
            _chunk(data),
            folder_id=args.folder_id,
            neutralize=source.connection.neutralize,
        )
        await files.commit()
        return {**describe(file), "neutralize": file.neutralize, "source_path": args.path}


TOOLS: list[Tool] = [
    Tool("download_to_workspace", "Copy a file from a connected data source into the "
         "workspace (then read it with read_file or the document tools).",
         DownloadToWorkspaceArguments, download_to_workspace, toolbox="datasources"),
]  # fmt: skip
