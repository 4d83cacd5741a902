"""`download_to_workspace`: a data-source file becomes a workspace file (indexed like any
upload). It inherits the source's `neutralize` flag, so no model sees its personal data."""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, Field

from agentur.connections.webdav_client import download
from agentur.tools.connection_access import source_connection
from agentur.tools.tool import Tool, ToolContext
from agentur.tools.workspace_access import save_bytes
from agentur.tools.workspace_files import describe


class DownloadToWorkspaceArguments(BaseModel):
    connection_id: str | None = None
    path: str = Field(min_length=1, max_length=2000, description="The file in the source.")
    folder_id: str | None = Field(default=None, description="Workspace folder; default top.")
    name: str | None = Field(default=None, description="File name; default the source's.")


async def download_to_workspace(
    args: DownloadToWorkspaceArguments, context: ToolContext
) -> dict[str, Any]:
    source = await source_connection(context, args.connection_id)
    data, source_name = await download(source.access, args.path)
    file = await save_bytes(
        context, args.name or source_name, data, folder_id=args.folder_id,
        neutralize=source.connection.neutralize,
    )  # fmt: skip
    return {**describe(file), "neutralize": file.neutralize, "source_path": args.path}


TOOLS: list[Tool] = [
    Tool("download_to_workspace", "Copy a file from a connected data source into the "
         "workspace (then read it with read_file or the document tools).",
         DownloadToWorkspaceArguments, download_to_workspace, toolbox="datasources"),
]  # fmt: skip
