"""`jira_get_issue`: one Jira issue with its description and comments as plain text."""

from __future__ import annotations

from typing import Any

from pydantic import Field

from agentur.connections.http_access import HttpAccess
from agentur.connections.jira_client import get_issue
from agentur.tools.connection_access import SourceArguments, source_tool


class JiraIssueArguments(SourceArguments):
    key: str = Field(min_length=1, max_length=100, description="Issue key, e.g. OPS-12.")


def _get(access: HttpAccess, args: JiraIssueArguments) -> Any:
    return get_issue(access, args.key)


TOOLS = [
    source_tool("jira_get_issue", "Read one Jira issue: status, assignee, description, comments.",
                JiraIssueArguments, _get, read_only=True, toolbox="jira"),
]  # fmt: skip
