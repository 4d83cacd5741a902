"""Shared inputs for the adapter tests: model specs, a tool, a multi-turn conversation."""

from __future__ import annotations

from typing import Any

from agentur.ai.messages import AiRequest, CallOptions, Message, ToolCall, ToolDefinition
from agentur.ai.model_spec import Capability, ModelSpec
from agentur.ai.operation_types import OperationType

WEATHER_TOOL = ToolDefinition(
    name="get_weather",
    description="Current weather for a city.",
    parameters={
        "type": "object",
        "properties": {"city": {"type": "string"}, "unit": {"type": "string"}},
        "required": ["city"],
    },
)
WEATHER_CALL = ToolCall("call_abc-123", "get_weather", {"city": "Bern"})


def spec(provider: str, name: str, **kwargs: Any) -> ModelSpec:
    capabilities = frozenset({Capability.tools, Capability.streaming})
    return ModelSpec(provider=provider, name=name, capabilities=capabilities, **kwargs)


def ask(text: str = "Hello", **options: Any) -> AiRequest:
    return AiRequest(
        operation=OperationType.agent,
        messages=(Message.user(text),),
        options=CallOptions(**options),
    )


def conversation(**options: Any) -> AiRequest:
    """system, user, assistant text+tool call, tool result, user — with the weather tool."""
    return AiRequest(
        operation=OperationType.agent,
        messages=(
            Message.system("You are terse."),
            Message.user("Weather in Bern?"),
            Message.assistant("Let me check.", (WEATHER_CALL,)),
            Message.tool_result(WEATHER_CALL, "12 °C, rain"),
            Message.user("And tomorrow?"),
        ),
        tools=(WEATHER_TOOL,),
        options=CallOptions(**options),
    )


async def collect(stream: Any) -> list[Any]:
    return [event async for event in stream]
