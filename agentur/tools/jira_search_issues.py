"""`jira_search_issues`: Jira issues by JQL, one page at a time."""

from __future__ import annotations

from typing import Any

from pydantic import Field

from agentur.connections.http_access import HttpAccess
from agentur.connections.jira_client import search_issues
from agentur.tools.connection_access import SourceArguments, source_tool


class JiraSearchArguments(SourceArguments):
    jql: str = Field(min_length=1, max_length=2000, description="e.g. project = OPS AND ...")
    max_results: int = Field(default=20, ge=1, le=100)
    page_token: str | None = Field(default=None, description="next_page_token of a prior page.")


def _search(access: HttpAccess, args: JiraSearchArguments) -> Any:
    return search_issues(access, args.jql, args.max_results, args.page_token)


TOOLS = [
    source_tool("jira_search_issues", "Search Jira issues with JQL; pass next_page_token for more.",
                JiraSearchArguments, _search, read_only=True, toolbox="jira"),
]  # fmt: skip
