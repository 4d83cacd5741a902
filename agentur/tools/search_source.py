"""`search_source`: files of a WebDAV data source whose name contains a text, found by walking
the folders breadth first (plain WebDAV has no portable search), within explicit limits."""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, Field

from agentur.connections.webdav_client import list_folder
from agentur.tools.connection_access import source_connection
from agentur.tools.tool import Tool, ToolContext

MAX_FOLDERS = 200


class SearchSourceArguments(BaseModel):
    connection_id: str | None = None
    query: str = Field(min_length=1, max_length=200, description="Part of the file name.")
    path: str = Field(default="", max_length=2000, description="Folder to search below.")
    max_results: int = Field(default=50, ge=1, le=500)


async def search_source(args: SearchSourceArguments, context: ToolContext) -> dict[str, Any]:
    source = await source_connection(context, args.connection_id)
    needle = args.query.casefold()
    pending, visited, found = [args.path], 0, []
    while pending and visited < MAX_FOLDERS and len(found) < args.max_results:
        folder = pending.pop(0)
        visited += 1
        for entry in await list_folder(source.access, folder):
            if entry.is_folder:
                pending.append(entry.path)
            if needle in entry.name.casefold() and len(found) < args.max_results:
                found.append(entry.as_dict())
    return {
        "connection_id": source.connection.id,
        "matches": found,
        "folders_searched": visited,
        "complete": not pending,
    }


TOOLS: list[Tool] = [
    Tool("search_source", "Find files and folders by name in a connected data source.",
         SearchSourceArguments, search_source, read_only=True, toolbox="datasources"),
]  # fmt: skip
