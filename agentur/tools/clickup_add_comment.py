"""`clickup_add_comment`: a comment on a ClickUp task; reported once ClickUp created it."""

from __future__ import annotations

from typing import Any

from pydantic import Field

from agentur.connections.clickup_client import add_comment
from agentur.connections.http_access import HttpAccess
from agentur.tools.connection_access import SourceArguments, source_tool


class ClickUpCommentArguments(SourceArguments):
    task_id: str = Field(min_length=1, max_length=100)
    text: str = Field(min_length=1, max_length=30_000)


async def _comment(access: HttpAccess, args: ClickUpCommentArguments) -> dict[str, Any]:
    return {"task_id": args.task_id, **await add_comment(access, args.task_id, args.text)}


TOOLS = [
    source_tool("clickup_add_comment", "Add a comment to a ClickUp task.",
                ClickUpCommentArguments, _comment, toolbox="clickup", is_action=True),
]  # fmt: skip
