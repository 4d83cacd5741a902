"""`jira_search_issues`: Jira issues by JQL, one page at a time."""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, Field

from agentur.connections.jira_client import search_issues
from agentur.tools.connection_access import source_connection
from agentur.tools.tool import Tool, ToolContext


class JiraSearchArguments(BaseModel):
    connection_id: str | None = None
    jql: str = Field(min_length=1, max_length=2000, description="e.g. project = OPS AND ...")
    max_results: int = Field(default=20, ge=1, le=100)
    page_token: str | None = Field(default=None, description="next_page_token of a prior page.")


async def jira_search_issues(args: JiraSearchArguments, context: ToolContext) -> dict[str, Any]:
    source = await source_connection(context, args.connection_id, "jira")
    page = await search_issues(source.access, args.jql, args.max_results, args.page_token)
    return {"connection_id": source.connection.id, **page}


TOOLS: list[Tool] = [
    Tool("jira_search_issues", "Search Jira issues with JQL; pass next_page_token for more.",
         JiraSearchArguments, jira_search_issues, read_only=True, toolbox="jira"),
]  # fmt: skip
