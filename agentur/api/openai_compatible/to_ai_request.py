"""An OpenAI chat-completions request as the gateway's provider-neutral `AiRequest`."""

from __future__ import annotations

import json
from typing import Any

from agentur.ai.messages import (
    AiRequest,
    CallOptions,
    JsonSchemaFormat,
    Message,
    Role,
    Sampling,
    ToolCall,
    ToolDefinition,
)
from agentur.ai.operation_types import OperationType
from agentur.api.openai_compatible.errors import OpenAIError
from agentur.api.openai_compatible.schemas import ChatCompletionRequest, ChatMessageIn, ToolIn


def _arguments(raw: str, index: int) -> dict[str, Any]:
    try:
        parsed = json.loads(raw or "{}")
    except json.JSONDecodeError:
        parsed = None
    if not isinstance(parsed, dict):
        raise OpenAIError(
            400,
            "tool call arguments must be a JSON object",
            param=f"messages.{index}.tool_calls",
        )
    return parsed


def to_messages(messages: list[ChatMessageIn]) -> tuple[Message, ...]:
    """Neutral messages; a tool result gets the name of the call it answers (some providers
    need it), looked up among the assistant's earlier tool calls."""
    names: dict[str, str] = {}
    converted: list[Message] = []
    for index, message in enumerate(messages):
        if message.role in ("system", "developer"):
            converted.append(Message.system(message.text))
        elif message.role == "user":
            converted.append(Message.user(message.text))
        elif message.role == "assistant":
            calls = tuple(
                ToolCall(call.id, call.function.name, _arguments(call.function.arguments, index))
                for call in message.tool_calls or ()
            )
            names.update((call.id, call.name) for call in calls)
            converted.append(Message.assistant(message.text, calls))
        else:
            call_id = message.tool_call_id or ""
            if call_id not in names:
                raise OpenAIError(
                    400,
                    f"tool message {index} answers no earlier tool call ({call_id or 'no id'})",
                    param=f"messages.{index}.tool_call_id",
                )
            converted.append(
                Message(Role.tool, message.text, tool_call_id=call_id, tool_name=names[call_id])
            )
    return tuple(converted)


def offered_tools(tools: list[ToolIn] | None, choice: str | dict[str, Any] | None) -> list[ToolIn]:
    """The tools the model gets under `tool_choice`: none for "none", only the named one for
    a named function (the gateway has no forced call, so the model may still answer in text),
    all for "auto" and "required"."""
    tools = tools or []
    if choice == "none":
        return []
    if isinstance(choice, dict):
        name = (choice.get("function") or {}).get("name")
        chosen = [tool for tool in tools if tool.function.name == name]
        if not chosen:
            raise OpenAIError(
                400, f"tool_choice names no tool in tools: {name}", param="tool_choice"
            )
        return chosen
    if choice not in (None, "auto", "required"):
        raise OpenAIError(400, f"unknown tool_choice: {choice}", param="tool_choice")
    return tools


def response_format(body: ChatCompletionRequest) -> str | JsonSchemaFormat:
    requested = body.response_format
    if requested is None or requested.type == "text":
        return "text"
    if requested.type == "json_object":
        return "json"
    named = requested.json_schema
    if named is None or not named.schema_:
        raise OpenAIError(
            400,
            "response_format json_schema needs json_schema.schema",
            param="response_format.json_schema",
        )
    return JsonSchemaFormat(named.schema_, named.name, named.strict)


def to_ai_request(body: ChatCompletionRequest, model_id: str) -> AiRequest:
    tools = offered_tools(body.tools, body.tool_choice)
    return AiRequest(
        operation=OperationType.agent if tools else OperationType.data_generate,
        messages=to_messages(body.messages),
        tools=tuple(
            ToolDefinition(t.function.name, t.function.description, t.function.parameters)
            for t in tools
        ),
        options=CallOptions(
            temperature=body.temperature,
            max_output_tokens=body.max_completion_tokens or body.max_tokens,
            response_format=response_format(body),
            sampling=Sampling(
                top_p=body.top_p,
                stop=body.stop_sequences,
                seed=body.seed,
                presence_penalty=body.presence_penalty,
                frequency_penalty=body.frequency_penalty,
            ),
            model=model_id,
        ),
    )
