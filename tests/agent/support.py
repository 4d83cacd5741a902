"""Helpers for agent tests: scripted gateways, recording sinks, small tools."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from pydantic import BaseModel

from agentur.agent.dependencies import AgentDependencies
from agentur.agent.events import AgentEvent, EventType
from agentur.agent.settings import AgentSettings
from agentur.ai.messages import ToolCall
from agentur.ai.model_spec import Capability, ModelSpec
from agentur.ai.providers.scripted import ScriptedProvider, Step
from agentur.ai.service import AiService
from agentur.ai.settings import AiSettings
from agentur.tools.registry import ToolRegistry
from agentur.tools.tool import Tool, ToolContext
from agentur.tools.toolboxes import ToolboxEnvironment


def chat_model(**changes: object) -> ModelSpec:
    values: dict[str, object] = {
        "provider": "scripted",
        "name": "scripted-model",
        "capabilities": frozenset({Capability.tools, Capability.streaming}),
        "context_window": 128_000,
        "max_output_tokens": 1_000,
        "input_price_usd_per_mtok": 0.0,
        "output_price_usd_per_mtok": 0.0,
    }
    values.update(changes)
    return ModelSpec(**values)  # type: ignore[arg-type]


@dataclass
class Recorder:
    events: list[AgentEvent] = field(default_factory=list)

    def __call__(self, event: AgentEvent) -> None:
        self.events.append(event)

    def of(self, kind: EventType) -> list[dict]:
        return [e.data for e in self.events if e.type is kind]

    def names(self) -> list[str]:
        return [e.type.value for e in self.events]


def scripted(script: Sequence[Step], *models: ModelSpec) -> tuple[AiService, ScriptedProvider]:
    provider = ScriptedProvider(list(script), model_specs=list(models) or [chat_model()])
    return AiService([provider], settings=AiSettings()), provider


def deps(
    ai: AiService,
    tools: Sequence[Tool] | None = None,
    *,
    runtime: object | None = None,
    **settings: object,
) -> AgentDependencies:
    registry = ToolRegistry(tools) if tools is not None else None
    return AgentDependencies(
        ai=ai,
        runtime=runtime,  # type: ignore[arg-type]
        settings=AgentSettings(**settings),  # type: ignore[arg-type]
        registry=registry,
        toolbox_environment=None if runtime is not None else ToolboxEnvironment(),
        usd_to_chf=1.0,
    )


def call(tool_name: str, call_id: str, /, **arguments: object) -> ToolCall:
    return ToolCall(call_id, tool_name, dict(arguments))


class NoArguments(BaseModel):
    pass


def read_tool(result: dict[str, Any], name: str = "read_file") -> Tool:
    """A read-only tool without arguments that returns `result` (a file as a test reads it)."""

    async def read(args: NoArguments, context: ToolContext) -> dict[str, Any]:
        return result

    return Tool(name, f"Read {result.get('name', 'a file')}.", NoArguments, read, read_only=True)
