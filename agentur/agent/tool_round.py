"""The tool half of a round: which tools are offered, and running the model's calls through
the lifecycle wrapper in execution order, recording them in the conversation and the trace."""

from __future__ import annotations

from dataclasses import replace
from functools import lru_cache

from pydantic import BaseModel

from agentur.agent.config import ToolSet
from agentur.agent.dependencies import RunStatus
from agentur.agent.execute_tool_calls import execute_tool_calls
from agentur.agent.progress_summary import Step
from agentur.agent.redact import redact, redact_text
from agentur.agent.run_state import RoundOffer, RunState, record_status
from agentur.agent.settings import AgentSettings
from agentur.agent.trace import TraceKind
from agentur.ai.messages import ToolCall, ToolDefinition
from agentur.egress.policy import EgressPolicy
from agentur.egress.settings import allowed_hosts
from agentur.tools.model_schema import model_schema
from agentur.tools.run_tool import ToolLimits, ToolOutcome, run_tool
from agentur.tools.tool import Tool, ToolContext
from agentur.tools.toolboxes import request_toolbox_tool

TRACE_CONTENT_CHARS = 10_000


def tool_definition(tool: Tool) -> ToolDefinition:
    # Keyed by what the definition is made of, not by the Tool: per-run tools such as
    # `request_toolbox` close over run state, so each is a new Tool with the same definition.
    return _definition(tool.name, tool.description, tool.arguments)


@lru_cache(maxsize=512)
def _definition(name: str, description: str, arguments: type[BaseModel]) -> ToolDefinition:
    return ToolDefinition(name, description, model_schema(arguments.model_json_schema()))


def round_offer(run: RunState) -> RoundOffer:
    """This round's tools; reused from the last round unless a toolbox was activated."""
    active = frozenset(run.toolboxes.active) if run.toolboxes else frozenset()
    if run.offer is None or run.offer.active != active:
        tools = offered_tools(run)
        by_name = {tool.name: tool for tool in tools}
        run.offer = RoundOffer(
            active=active,
            tools=tuple(tools),
            definitions=tuple(tool_definition(tool) for tool in tools),
            by_name=by_name,
            names=sorted(by_name),
        )
    return run.offer


def offered_tools(run: RunState) -> list[Tool]:
    config = run.config
    if config.tool_set is ToolSet.none:
        return []
    assert run.toolboxes is not None
    active = run.toolboxes.active
    tools = [
        tool
        for tool in (*run.deps.tool_registry().all(), *run.toolboxes.loaded_tools)
        if tool.toolbox in active
        and not (config.exclude_action_tools and tool.is_action)
        and (config.tool_set is not ToolSet.read_only or tool.read_only)
    ]
    meta = request_toolbox_tool(run.toolboxes)
    if meta is not None:
        tools.append(meta)
    return tools


async def run_tools(
    run: RunState, offer: RoundOffer, calls: tuple[ToolCall, ...]
) -> list[ToolOutcome]:
    settings = run.deps.settings
    by_name = offer.by_name
    run.extras["round"] = run.rounds
    run.extras["offered_tools"] = offer.names
    tool_context = ToolContext(
        request=run.context,
        runtime=run.deps.runtime,  # type: ignore[arg-type]  # None only in in-memory runs
        workflow_id=run.prepared.workflow_id,
        run_id=run.prepared.run_id,
        extras=run.extras,
        web_egress=web_policy(settings),
    )
    limits = ToolLimits(
        timeout_seconds=settings.agent_tool_timeout_seconds,
        max_result_chars=settings.agent_max_tool_result_chars,
        egress=egress_policy(settings),
    )
    activations_before = len(run.toolboxes.activations) if run.toolboxes else 0
    outcomes = await execute_tool_calls(
        calls,
        lambda call: run_tool(by_name.get(call.name), call, tool_context, limits, run.emit),
        lambda call: (tool := by_name.get(call.name)) is None or tool.read_only,
        settings.agent_max_parallel_tools,
    )
    for outcome in outcomes:
        run.conversation.add_tool_result(outcome.call, outcome.content, is_error=outcome.is_error)
        run.steps.append(
            Step(run.rounds, outcome.call.name, outcome.call.arguments, outcome.is_error)
        )
        run.trace.add(
            TraceKind.tool_call,
            {
                "id": outcome.call.id,
                "name": outcome.call.name,
                "arguments": redact(outcome.call.arguments),
                "result": redact_text(outcome.content[:TRACE_CONTENT_CHARS]),
                "result_length": len(outcome.content),
                "is_error": outcome.is_error,
            },
            round_index=run.rounds,
            duration_ms=round(outcome.duration_ms, 3),
        )
    if run.toolboxes:
        for activation in run.toolboxes.activations[activations_before:]:
            run.trace.add(TraceKind.toolbox, activation, round_index=run.rounds)
            record_status(run, RunStatus.running, toolbox_activated=activation["toolbox_id"])
    return outcomes


def egress_policy(settings: AgentSettings) -> EgressPolicy:
    return EgressPolicy(
        timeout_seconds=settings.agent_egress_timeout_seconds,
        max_bytes=settings.agent_egress_max_bytes,
        max_redirects=settings.agent_egress_max_redirects,
        allowed=allowed_hosts(),
    )


def web_policy(settings: AgentSettings) -> EgressPolicy:
    """The tool policy with the web caps `read_url` downloads under."""
    return replace(
        egress_policy(settings),
        timeout_seconds=settings.web_timeout_seconds,
        max_bytes=settings.web_max_bytes,
    )
