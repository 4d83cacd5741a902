"""`clickup_add_comment`: a comment on a ClickUp task; reported once ClickUp created it."""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, Field

from agentur.connections.clickup_client import add_comment
from agentur.tools.connection_access import source_connection
from agentur.tools.tool import Tool, ToolContext


class ClickUpCommentArguments(BaseModel):
    connection_id: str | None = None
    task_id: str = Field(min_length=1, max_length=100)
    text: str = Field(min_length=1, max_length=30_000)


async def clickup_add_comment(
    args: ClickUpCommentArguments, context: ToolContext
) -> dict[str, Any]:
    source = await source_connection(context, args.connection_id, "clickup")
    created = await add_comment(source.access, args.task_id, args.text)
    return {"connection_id": source.connection.id, "task_id": args.task_id, **created}


TOOLS: list[Tool] = [
    Tool("clickup_add_comment", "Add a comment to a ClickUp task.",
         ClickUpCommentArguments, clickup_add_comment, toolbox="clickup", is_action=True),
]  # fmt: skip
