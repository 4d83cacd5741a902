"""`sharepoint_download`: a SharePoint/OneDrive file becomes a workspace file; it inherits the
connection's `neutralize` flag."""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, Field

from agentur.connections.graph_client import download
from agentur.tools.connection_access import graph_connection
from agentur.tools.tool import Tool, ToolContext
from agentur.tools.workspace_access import save_bytes
from agentur.tools.workspace_files import describe


class SharepointDownloadArguments(BaseModel):
    connection_id: str | None = None
    drive_id: str = Field(min_length=1, max_length=200)
    item_id: str = Field(min_length=1, max_length=200)
    folder_id: str | None = None


async def sharepoint_download(
    args: SharepointDownloadArguments, context: ToolContext
) -> dict[str, Any]:
    connection, access = await graph_connection(context, args.connection_id)
    data, name = await download(access, args.drive_id, args.item_id)
    file = await save_bytes(
        context, name, data, folder_id=args.folder_id, neutralize=connection.neutralize
    )
    return {**describe(file), "neutralize": file.neutralize, "source_item_id": args.item_id}


TOOLS: list[Tool] = [
    Tool("sharepoint_download", "Copy a SharePoint/OneDrive file into the workspace.",
         SharepointDownloadArguments, sharepoint_download, toolbox="sharepoint"),
]  # fmt: skip
