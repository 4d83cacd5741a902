"""`clickup_list_tasks`: the tasks of a ClickUp list, one page at a time."""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, Field

from agentur.connections.clickup_client import list_tasks
from agentur.tools.connection_access import source_connection
from agentur.tools.tool import Tool, ToolContext


class ClickUpListArguments(BaseModel):
    connection_id: str | None = None
    list_id: str = Field(min_length=1, max_length=100)
    page: int = Field(default=0, ge=0, description="next_page of a prior call.")
    include_closed: bool = False


async def clickup_list_tasks(args: ClickUpListArguments, context: ToolContext) -> dict[str, Any]:
    source = await source_connection(context, args.connection_id, "clickup")
    page = await list_tasks(source.access, args.list_id, args.page, args.include_closed)
    return {"connection_id": source.connection.id, **page}


TOOLS: list[Tool] = [
    Tool("clickup_list_tasks", "List the tasks of a ClickUp list; pass next_page for more.",
         ClickUpListArguments, clickup_list_tasks, read_only=True, toolbox="clickup"),
]  # fmt: skip
