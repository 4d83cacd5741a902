"""`jira_add_comment`: a comment on a Jira issue; reported only once Jira created it."""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, Field

from agentur.connections.jira_client import add_comment
from agentur.tools.connection_access import source_connection
from agentur.tools.tool import Tool, ToolContext


class JiraCommentArguments(BaseModel):
    connection_id: str | None = None
    key: str = Field(min_length=1, max_length=100)
    text: str = Field(min_length=1, max_length=30_000)


async def jira_add_comment(args: JiraCommentArguments, context: ToolContext) -> dict[str, Any]:
    source = await source_connection(context, args.connection_id, "jira")
    created = await add_comment(source.access, args.key, args.text)
    return {"connection_id": source.connection.id, "key": args.key, **created}


TOOLS: list[Tool] = [
    Tool("jira_add_comment", "Add a comment to a Jira issue.",
         JiraCommentArguments, jira_add_comment, toolbox="jira", is_action=True),
]  # fmt: skip
