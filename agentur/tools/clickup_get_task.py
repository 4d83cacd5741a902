"""`clickup_get_task`: one ClickUp task with its description."""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, Field

from agentur.connections.clickup_client import get_task
from agentur.tools.connection_access import source_connection
from agentur.tools.tool import Tool, ToolContext


class ClickUpTaskArguments(BaseModel):
    connection_id: str | None = None
    task_id: str = Field(min_length=1, max_length=100)


async def clickup_get_task(args: ClickUpTaskArguments, context: ToolContext) -> dict[str, Any]:
    source = await source_connection(context, args.connection_id, "clickup")
    return {"connection_id": source.connection.id, **await get_task(source.access, args.task_id)}


TOOLS: list[Tool] = [
    Tool("clickup_get_task", "Read one ClickUp task: status, assignees, description.",
         ClickUpTaskArguments, clickup_get_task, read_only=True, toolbox="clickup"),
]  # fmt: skip
