"""What a tool needs to run a sub-agent: the loop hands a runner down in
`ToolDeps.sub_agent`. The tools own this protocol, so they never import the
agent (which imports the tools)."""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass

from agentur.tool_loop.tool import Tool


@dataclass(frozen=True, slots=True)
class SubAgentRequest:
    label: str  # names the sub-agent in the parent's trace and events
    question: str
    system_prompt: str
    tools: Sequence[Tool]
    # The feature instance the sub-agent's tools query (`ToolDeps.feature_instance_id`):
    # fixed by the calling tool, never by the sub-agent's model.
    feature_instance_id: str | None = None


@dataclass(frozen=True, slots=True)
class SubAgentAnswer:
    status: str  # the sub-run's status: completed, budget_exceeded, max_rounds_reached, …
    text: str  # its answer, or a progress summary when it stopped early
    rounds: int
    cost_chf: float


SubAgentRunner = Callable[[SubAgentRequest], Awaitable[SubAgentAnswer]]
