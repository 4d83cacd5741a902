"""`jira_add_comment`: a comment on a Jira issue; reported only once Jira created it."""

from __future__ import annotations

from typing import Any

from pydantic import Field

from agentur.connections.http_access import HttpAccess
from agentur.connections.jira_client import add_comment
from agentur.tools.connection_access import SourceArguments, source_tool


class JiraCommentArguments(SourceArguments):
    key: str = Field(min_length=1, max_length=100)
    text: str = Field(min_length=1, max_length=30_000)


async def _comment(access: HttpAccess, args: JiraCommentArguments) -> dict[str, Any]:
    return {"key": args.key, **await add_comment(access, args.key, args.text)}


TOOLS = [
    source_tool("jira_add_comment", "Add a comment to a Jira issue.",
                JiraCommentArguments, _comment, toolbox="jira", is_action=True),
]  # fmt: skip
