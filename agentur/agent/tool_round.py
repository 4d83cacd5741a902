"""The agent's tool half of a step: which tools a round offers, the context its tools receive,
the limits they run under, and recording their outcomes in the conversation and the trace.
The calls themselves run in the tool loop (agentur/tool_loop/loop.py)."""

from __future__ import annotations

from dataclasses import replace
from functools import lru_cache
from typing import Any

from pydantic import BaseModel

from agentur.agent.config import ToolSet
from agentur.agent.dependencies import RunStatus
from agentur.agent.progress_summary import Step
from agentur.agent.redact import redact, redact_text
from agentur.agent.run_state import RunState, StopRun, record_status
from agentur.agent.settings import AgentSettings
from agentur.agent.trace import TraceKind
from agentur.ai.messages import ToolDefinition
from agentur.egress.policy import EgressPolicy
from agentur.egress.settings import allowed_hosts
from agentur.tool_loop.loop import LoopDriver, run_loop
from agentur.tool_loop.prepare_step import StepOffer
from agentur.tool_loop.run_tool import ToolLimits, ToolOutcome
from agentur.tool_loop.stop_conditions import step_count_is
from agentur.tools.model_schema import model_schema
from agentur.tools.run_tool import resolve_names
from agentur.tools.tool import Tool, ToolContext, ToolDeps
from agentur.tools.toolboxes import request_toolbox_tool

TRACE_CONTENT_CHARS = 10_000


def tool_definition(tool: Tool) -> ToolDefinition:
    # Keyed by what the definition is made of, not by the Tool: per-run tools such as
    # `request_toolbox` close over run state, so each is a new Tool with the same definition.
    return _definition(tool.name, tool.description, tool.arguments)


@lru_cache(maxsize=512)
def _definition(name: str, description: str, arguments: type[BaseModel]) -> ToolDefinition:
    return ToolDefinition(name, description, model_schema(arguments.model_json_schema()))


def round_offer(run: RunState) -> StepOffer:
    """This round's tools; reused from the last round unless a toolbox was activated."""
    active = frozenset(run.toolboxes.active) if run.toolboxes else frozenset()
    if run.offer is None or run.offer.active != active:
        run.offer = StepOffer.of(offered_tools(run), tool_definition, active)
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


def tool_context(run: RunState, deps: ToolDeps) -> ToolContext:
    """What the run's tool handlers receive; the loop sets the round and the offered tools."""
    settings = run.deps.settings
    return ToolContext(
        request=run.context,
        runtime=run.deps.runtime,  # type: ignore[arg-type]  # None only in in-memory runs
        deps=deps,
        workflow_id=run.prepared.workflow_id,
        run_id=run.prepared.run_id,
        web_egress=web_policy(settings),
        max_result_chars=settings.agent_max_tool_result_chars,
    )


def tool_limits(settings: AgentSettings) -> ToolLimits:
    return ToolLimits(
        timeout_seconds=settings.agent_tool_timeout_seconds,
        max_result_chars=settings.agent_max_tool_result_chars,
        egress=egress_policy(settings),
    )


def loop_settings(run: RunState) -> dict[str, Any]:
    """The tool loop's settings for an agent run (or a sub-agent's), as `LoopDriver` fields."""
    settings = run.deps.settings
    return {
        "context": run.tool_context,
        "limits": tool_limits(settings),
        "emit": run.emit,
        "max_parallel": settings.agent_max_parallel_tools,
        "resolve": resolve_names,
    }


async def run_rounds(run: RunState, driver: LoopDriver, exhausted: str) -> str:
    """The loop for at most the run's rounds; the answer, or `StopRun` with `exhausted`."""
    end = await run_loop(driver, [step_count_is(run.config.max_rounds)])
    if end.answer is None:
        raise StopRun(RunStatus.max_rounds_reached, exhausted)
    return end.answer


def toolbox_activations(run: RunState) -> int:
    return len(run.toolboxes.activations) if run.toolboxes else 0


def record_outcomes(run: RunState, outcomes: list[ToolOutcome], activations_before: int) -> None:
    """The round's outcomes into the conversation, the progress steps and the trace, then the
    toolboxes the round activated."""
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
