"""`clickup_list_tasks`: the tasks of a ClickUp list, one page at a time."""

from __future__ import annotations

from typing import Any

from pydantic import Field

from agentur.connections.clickup_client import list_tasks
from agentur.connections.http_access import HttpAccess
from agentur.tools.connection_access import SourceArguments, source_tool


class ClickUpListArguments(SourceArguments):
    list_id: str = Field(min_length=1, max_length=100)
    page: int = Field(default=0, ge=0, description="next_page of a prior call.")
    include_closed: bool = False


def _list(access: HttpAccess, args: ClickUpListArguments) -> Any:
    return list_tasks(access, args.list_id, args.page, args.include_closed)


TOOLS = [
    source_tool("clickup_list_tasks", "List the tasks of a ClickUp list; pass next_page for more.",
                ClickUpListArguments, _list, read_only=True, toolbox="clickup"),
]  # fmt: skip
