"""`jira_get_issue`: one Jira issue with its description and comments as plain text."""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, Field

from agentur.connections.jira_client import get_issue
from agentur.tools.connection_access import source_connection
from agentur.tools.tool import Tool, ToolContext


class JiraIssueArguments(BaseModel):
    connection_id: str | None = None
    key: str = Field(min_length=1, max_length=100, description="Issue key, e.g. OPS-12.")


async def jira_get_issue(args: JiraIssueArguments, context: ToolContext) -> dict[str, Any]:
    source = await source_connection(context, args.connection_id, "jira")
    return {"connection_id": source.connection.id, **await get_issue(source.access, args.key)}


TOOLS: list[Tool] = [
    Tool("jira_get_issue", "Read one Jira issue: status, assignee, description, comments.",
         JiraIssueArguments, jira_get_issue, read_only=True, toolbox="jira"),
]  # fmt: skip
