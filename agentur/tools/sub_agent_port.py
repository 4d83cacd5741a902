"""What a tool needs to run a sub-agent: the loop hands a runner down in
`ToolContext.extras[SUB_AGENT_KEY]`. The tools own this protocol, so they never import the
agent (which imports the tools)."""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from agentur.tools.tool import Tool

SUB_AGENT_KEY = "sub_agent"


@dataclass(frozen=True, slots=True)
class SubAgentRequest:
    label: str  # names the sub-agent in the parent's trace and events
    question: str
    system_prompt: str
    tools: Sequence[Tool]
    # Handed to the sub-agent's tools in `ToolContext.extras` (e.g. the instance they query):
    # fixed by the calling tool, never by the sub-agent's model.
    extras: dict[str, Any] = field(default_factory=dict)


@dataclass(frozen=True, slots=True)
class SubAgentAnswer:
    status: str  # the sub-run's status: completed, budget_exceeded, max_rounds_reached, …
    text: str  # its answer, or a progress summary when it stopped early
    rounds: int
    cost_chf: float


SubAgentRunner = Callable[[SubAgentRequest], Awaitable[SubAgentAnswer]]
