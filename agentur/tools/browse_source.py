"""`browse_source`: the entries of one folder of a WebDAV data source."""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, Field

from agentur.connections.webdav_client import list_folder
from agentur.tools.connection_access import source_connection
from agentur.tools.tool import Tool, ToolContext


class BrowseSourceArguments(BaseModel):
    connection_id: str | None = Field(
        default=None, description="The data source; may be left out if you have only one."
    )
    path: str = Field(default="", max_length=2000, description="Folder path; '' for the top.")


async def browse_source(args: BrowseSourceArguments, context: ToolContext) -> dict[str, Any]:
    source = await source_connection(context, args.connection_id)
    entries = await list_folder(source.access, args.path)
    return {
        "connection_id": source.connection.id,
        "path": args.path,
        "entries": [entry.as_dict() for entry in entries],
    }


TOOLS: list[Tool] = [
    Tool("browse_source", "List the files and folders in a folder of a connected data source.",
         BrowseSourceArguments, browse_source, read_only=True, toolbox="datasources"),
]  # fmt: skip
