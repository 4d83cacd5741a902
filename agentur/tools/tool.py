"""The agent's tools' vocabulary: `Tool` (agentur/tool_loop/tool.py) and the context their
handlers receive, a `RunContext` whose dependencies (`ToolDeps`) are fixed by the loop or by
the tool that starts a sub-agent — never by a model's arguments."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from agentur.tool_loop.run_context import RunContext
from agentur.tool_loop.tool import Arguments, Handler, Tool

if TYPE_CHECKING:
    from agentur.tools.sub_agent_port import SubAgentRunner

__all__ = ["Arguments", "Handler", "Tool", "ToolContext", "ToolDeps"]


@dataclass
class ToolDeps:
    # Starts a sub-agent inside a tool call (query_feature_instance); None inside a sub-agent.
    sub_agent: SubAgentRunner | None = None
    # The feature instance a sub-agent's tools query, fixed by the tool that started it.
    feature_instance_id: str | None = None
    # Pages `read_url` already fetched in this run, by URL.
    pages: dict[str, Any] = field(default_factory=dict)


@dataclass
class ToolContext(RunContext[ToolDeps]):
    deps: ToolDeps = field(default_factory=ToolDeps)
