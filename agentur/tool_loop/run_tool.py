"""The lifecycle wrapper around every tool call.

In order: TOOL_CALL event; the tool must be offered this step; authorization from the request
context (a tool that changes data needs a role that may write — identity never comes from the
model's arguments, the handler gets it from `RunContext.request`); the caller's argument
resolver (the agent's tools resolve file and folder names to ids); argument validation, whose
message goes back to the model so it can correct the call; the egress check of URL arguments;
the handler under a time limit with the request context set; rendering and windowing of the
result; TOOL_RESULT event. Any exception becomes an error result, never a crashed run.
"""

from __future__ import annotations

import asyncio
import inspect
import logging
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any

from pydantic import ValidationError

from agentur.ai.messages import ToolCall
from agentur.context import request_context
from agentur.egress.check_target import check_url
from agentur.egress.policy import EgressPolicy
from agentur.errors import AgenturError, ForbiddenError
from agentur.observability.gen_ai import end_tool_call, tool_span
from agentur.tool_loop.events import AgentEvent, AnyEventSink, EventType
from agentur.tool_loop.results import READ_TOOL_RESULT, render_result
from agentur.tool_loop.run_context import RunContext
from agentur.tool_loop.tool import Tool

logger = logging.getLogger(__name__)

# (tool, given arguments, context) -> (arguments to validate, what was resolved, as dicts)
ArgumentResolver = Callable[
    [Tool, dict[str, Any], RunContext[Any]], Awaitable[tuple[dict[str, Any], list[dict]]]
]


@dataclass(frozen=True, slots=True)
class ToolLimits:
    timeout_seconds: float = 60.0
    max_result_chars: int = 20_000
    egress: EgressPolicy = field(default_factory=EgressPolicy)


@dataclass(frozen=True, slots=True)
class ToolOutcome:
    call: ToolCall
    content: str  # what the model sees
    is_error: bool
    duration_ms: float
    result: Any = None  # the raw return value (None on error)


def describe_validation_error(tool: Tool, error: ValidationError) -> str:
    problems = []
    for item in error.errors():
        location = ".".join(str(part) for part in item.get("loc", ())) or "(arguments)"
        problems.append(f"{location}: {item.get('msg')}")
    return (
        f"invalid arguments for {tool.name}: "
        + "; ".join(problems)
        + ". Call it again with arguments matching its schema."
    )


def given_arguments(tool: Tool, arguments: dict[str, Any]) -> dict[str, Any]:
    """`arguments` without optional ones set to null: small models send `"tags": null` for
    "not given" all the time, and the field's default is what they mean."""
    fields = tool.arguments.model_fields
    return {
        key: value
        for key, value in arguments.items()
        if value is not None or key not in fields or fields[key].is_required()
    }


def authorize(tool: Tool, context: RunContext[Any]) -> None:
    if not tool.read_only and not context.request.can_write:
        raise ForbiddenError(
            f"{tool.name} changes data and your role ({context.request.role}) is read-only"
        )


async def send(emit: AnyEventSink, event: AgentEvent) -> None:
    """Hands an event to a plain sink, or to one that waits until it is handled."""
    handled = emit(event)
    if inspect.isawaitable(handled):
        await handled


async def run_tool(
    tool: Tool | None,
    call: ToolCall,
    context: RunContext[Any],
    limits: ToolLimits,
    emit: AnyEventSink,
    resolve: ArgumentResolver | None = None,
) -> ToolOutcome:
    """Run one call through the lifecycle. `tool` is None when it is not offered this step."""
    round_index = context.round
    await send(
        emit,
        AgentEvent(
            EventType.tool_call,
            {"id": call.id, "name": call.name, "arguments": call.arguments, "round": round_index},
        ),
    )
    started = time.perf_counter()
    # An unknown name is the model's text, a connection's tool name the user's: neither
    # becomes a metric label.
    label = tool.observed_name if tool is not None else "(not offered)"
    remote = tool is not None and tool.connection_kind is not None
    with tool_span(call.name if tool is not None else label, label, call.id, remote) as span:
        result, content, is_error = await _lifecycle(tool, call, context, limits, resolve)
        duration_ms = (time.perf_counter() - started) * 1000
        end_tool_call(span, label, is_error, duration_ms / 1000)
    await send(
        emit,
        AgentEvent(
            EventType.tool_result,
            {
                "id": call.id,
                "name": call.name,
                "content": content,
                "is_error": is_error,
                "duration_ms": round(duration_ms, 3),
                "round": round_index,
            },
        ),
    )
    return ToolOutcome(call, content, is_error, duration_ms, None if is_error else result)


async def _lifecycle(
    tool: Tool | None,
    call: ToolCall,
    context: RunContext[Any],
    limits: ToolLimits,
    resolve: ArgumentResolver | None,
) -> tuple[Any, str, bool]:
    """(raw result, what the model sees, is_error); every failure becomes an error text."""
    try:
        result = await _execute(tool, call, context, limits, resolve)
        content = render_result(result)
        if call.name != READ_TOOL_RESULT:
            content = context.results.window(call.id, content, limits.max_result_chars)
        return result, content, False
    except ValidationError as error:
        content = describe_validation_error(tool, error)  # type: ignore[arg-type]
    except AgenturError as error:
        content = f"error: {error.detail}"
    except TimeoutError:
        timeout = (tool.timeout_seconds if tool else None) or limits.timeout_seconds
        content = f"error: {call.name} did not finish within {timeout:g} s"
    except Exception as error:  # a bug in a tool must not end the run
        logger.exception("tool %s raised", call.name)
        content = f"error: {call.name} failed unexpectedly ({type(error).__name__}: {error})"
    return None, content, True


async def _execute(
    tool: Tool | None,
    call: ToolCall,
    context: RunContext[Any],
    limits: ToolLimits,
    resolve: ArgumentResolver | None,
) -> Any:
    if tool is None:
        offered = context.offered_tools
        raise AgenturError(
            f"there is no tool {call.name!r} in this round"
            + (f"; offered: {', '.join(offered)}" if offered else "")
        )
    authorize(tool, context)
    given, resolved = given_arguments(tool, call.arguments), []
    if resolve is not None:
        given, resolved = await resolve(tool, given, context)
    arguments = tool.arguments.model_validate(given)
    for name in tool.url_arguments:
        value = getattr(arguments, name, None)
        for url in value if isinstance(value, list | tuple) else [value]:
            if url:
                await check_url(str(url), limits.egress)
    timeout = tool.timeout_seconds or limits.timeout_seconds
    with request_context(context.request):
        async with asyncio.timeout(timeout):
            result = await tool.handler(arguments, context)
    if not resolved:
        return result
    # The model learns which file or folder its name or path was taken for.
    if isinstance(result, dict):
        return {**result, "resolved": resolved}
    return {"resolved": resolved, "result": result}
