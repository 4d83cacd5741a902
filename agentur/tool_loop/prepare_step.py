"""What one step offers the model, as the Vercel AI SDK's `prepareStep`: the tools, their
definitions and a lookup by name. The caller builds it (from toolboxes, or a fixed set that is
withdrawn for the last step); the loop runs calls against it."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

from agentur.ai.messages import ToolDefinition
from agentur.tool_loop.tool import Tool


@dataclass(frozen=True, slots=True)
class StepOffer:
    tools: tuple[Tool, ...]
    definitions: tuple[ToolDefinition, ...]
    by_name: dict[str, Tool]
    names: list[str]  # sorted, for the "not offered" message
    # Toolboxes active when it was built: the agent builds it again only when they change.
    active: frozenset[str] = frozenset()

    @classmethod
    def of(
        cls,
        tools: Sequence[Tool],
        definition: Callable[[Tool], ToolDefinition],
        active: frozenset[str] = frozenset(),
    ) -> StepOffer:
        by_name = {tool.name: tool for tool in tools}
        return cls(
            tools=tuple(tools),
            definitions=tuple(definition(tool) for tool in tools),
            by_name=by_name,
            names=sorted(by_name),
            active=active,
        )


NOTHING = StepOffer((), (), {}, [])
