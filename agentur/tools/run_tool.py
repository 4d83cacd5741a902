"""The agent's tools run through the one lifecycle wrapper (agentur/tool_loop/run_tool.py),
with file and folder names or paths given for ids resolved first
(agentur/tools/resolve_references.py)."""

from __future__ import annotations

from functools import partial
from typing import Any

from agentur.tool_loop.run_context import RunContext
from agentur.tool_loop.run_tool import ToolLimits, ToolOutcome
from agentur.tool_loop.run_tool import run_tool as run_in_lifecycle
from agentur.tool_loop.tool import Tool
from agentur.tools.resolve_references import resolve_references

__all__ = ["ToolLimits", "ToolOutcome", "resolve_names", "run_tool"]


async def resolve_names(
    tool: Tool, arguments: dict[str, Any], context: RunContext[Any]
) -> tuple[dict[str, Any], list[dict]]:
    given, resolutions = await resolve_references(tool, arguments, context)  # type: ignore[arg-type]
    return given, [resolution.as_dict() for resolution in resolutions]


# The lifecycle wrapper with the names resolved: run_tool(tool, call, context, limits, emit).
run_tool = partial(run_in_lifecycle, resolve=resolve_names)
