"""`sharepoint_list_items`: files and folders of a SharePoint/OneDrive drive folder (Graph)."""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, Field

from agentur.connections.graph_client import list_children
from agentur.tools.connection_access import graph_connection
from agentur.tools.tool import Tool, ToolContext


class SharepointListArguments(BaseModel):
    connection_id: str | None = None
    drive_id: str = Field(min_length=1, max_length=200)
    item_id: str | None = Field(default=None, description="A folder's id; none: the top.")
    page_url: str | None = Field(default=None, description="next_page_url of a prior call.")


async def sharepoint_list_items(
    args: SharepointListArguments, context: ToolContext
) -> dict[str, Any]:
    connection, access = await graph_connection(context, args.connection_id)
    page = await list_children(access, args.drive_id, args.item_id, args.page_url)
    return {"connection_id": connection.id, **page}


TOOLS: list[Tool] = [
    Tool("sharepoint_list_items", "List the files and folders of a SharePoint/OneDrive "
         "folder; pass next_page_url for more.",
         SharepointListArguments, sharepoint_list_items, read_only=True, toolbox="sharepoint"),
]  # fmt: skip
