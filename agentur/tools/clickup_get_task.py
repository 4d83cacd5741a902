"""`clickup_get_task`: one ClickUp task with its description."""

from __future__ import annotations

from typing import Any

from pydantic import Field

from agentur.connections.clickup_client import get_task
from agentur.connections.http_access import HttpAccess
from agentur.tools.connection_access import SourceArguments, source_tool


class ClickUpTaskArguments(SourceArguments):
    task_id: str = Field(min_length=1, max_length=100)


def _get(access: HttpAccess, args: ClickUpTaskArguments) -> Any:
    return get_task(access, args.task_id)


TOOLS = [
    source_tool("clickup_get_task", "Read one ClickUp task: status, assignees, description.",
                ClickUpTaskArguments, _get, read_only=True, toolbox="clickup"),
]  # fmt: skip
