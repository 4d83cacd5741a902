"""`run_agent`: the ReAct loop over the AI gateway.

Per round: knowledge hook → budget check → summarization when the context grows → one model
call (operation AGENT, streamed) → tool execution → round memory hook. The run ends when the
model answers without tool calls, or with a stop status and a progress summary; it never ends
with an exception for the caller (a failure becomes status `failed`).
"""

from __future__ import annotations

import asyncio
import logging
import time
from contextlib import AbstractContextManager, nullcontext
from dataclasses import dataclass
from typing import Any

from agentur.agent.check_final_answer import settle_final_answer
from agentur.agent.config import AgentConfig
from agentur.agent.conversation_manager import ConversationManager
from agentur.agent.dependencies import AgentDependencies, AgentResult, RunStatus
from agentur.agent.model_round import model_round
from agentur.agent.prepare_run import PreparedRun, prepare_run, record_answer
from agentur.agent.progress_summary import progress_summary
from agentur.agent.recover_text_tool_calls import RetryRound, settle_text_tool_calls
from agentur.agent.round_hooks import knowledge_block, remember_round, remember_run
from agentur.agent.run_state import RunState, StopRun, record_status
from agentur.agent.sub_agent import sub_agent_runner
from agentur.agent.tool_round import (
    loop_settings,
    record_outcomes,
    round_offer,
    run_rounds,
    tool_context,
    toolbox_activations,
)
from agentur.agent.trace import RunFinish, TraceKind, TraceRecorder
from agentur.ai.billing.holder import holding_for
from agentur.ai.messages import AiResponse, Message, ToolCall
from agentur.context import RequestContext
from agentur.detect_language import clear_language_name
from agentur.observability.gen_ai import agent_run_span, end_agent_run, round_span
from agentur.tool_loop.budget import Budget
from agentur.tool_loop.events import AgentEvent, EventSink, EventType, discard_event
from agentur.tool_loop.loop import LoopDriver, ModelTurn
from agentur.tool_loop.prepare_step import StepOffer
from agentur.tool_loop.run_tool import ToolOutcome
from agentur.tool_loop.tool import Tool
from agentur.tools.tool import ToolDeps
from agentur.tools.toolboxes import ToolboxState, load_toolbox_environment

logger = logging.getLogger(__name__)


async def run_agent(
    prompt: str,
    config: AgentConfig,
    context: RequestContext,
    deps: AgentDependencies,
    *,
    workflow_id: str | None = None,
    emit: EventSink = discard_event,
) -> AgentResult:
    """Prepare and run one agent turn. Errors in preparation (unknown workflow) raise."""
    prepared = await prepare_run(prompt, config, context, deps, workflow_id=workflow_id)
    return await execute_run(prepared, deps, emit)


async def execute_run(
    prepared: PreparedRun, deps: AgentDependencies, emit: EventSink = discard_event
) -> AgentResult:
    # Only a stored run has a row for other workers to watch.
    heartbeat = deps.heartbeat if prepared.trace_store is not None else None
    database = deps.runtime.database if deps.runtime is not None else None
    with (
        # No client retries a run's writes: they wait out a burst of requests instead.
        database.background_work() if database is not None else nullcontext(),
        agent_run_span(prepared.run_id) as span,
        # Holds the run's calls make are its own: recovering it after a crash releases them.
        holding_for(prepared.run_id),
        heartbeat.keep_alive(prepared.run_id) if heartbeat else nullcontext(),
    ):
        result = await _execute(prepared, deps, emit)
        end_agent_run(span, result.status.value, result.rounds, result.duration_ms / 1000)
    return result


async def _execute(prepared: PreparedRun, deps: AgentDependencies, emit: EventSink) -> AgentResult:
    started = time.perf_counter()
    settings = deps.settings
    run = RunState(
        prepared=prepared,
        deps=deps,
        emit=emit,
        conversation=ConversationManager(prepared.context, turns=list(prepared.history)),
        budget=Budget(
            prepared.config.max_cost_chf, deps.exchange_rate(), settings.agent_min_output_tokens
        ),
        trace=TraceRecorder(prepared.run_id, prepared.context.mandate_id, prepared.trace_store),
    )
    run.conversation.add_user(prepared.prompt)
    # Lingua's models load on first use (seconds): off the event loop.
    run.conversation.language = await asyncio.to_thread(clear_language_name, prepared.prompt)
    pinned = run.conversation.turns[-1]
    run.tool_context = tool_context(run, ToolDeps(sub_agent=sub_agent_runner(run)))
    record_status(run, RunStatus.running)
    status, final_text, error, error_status = RunStatus.completed, "", None, None
    try:
        final_text = await _loop(run, pinned)
        run.last_text = final_text
    except StopRun as stop:
        status, error = stop.status, (stop.reason if stop.status is RunStatus.failed else None)
        error_status = stop.error_status
        final_text = progress_summary(stop.reason, run.rounds, run.steps, run.last_text)
    except asyncio.CancelledError:
        task = asyncio.current_task()
        if task is not None:
            task.uncancel()  # the run owns its task; finishing below must still await
        status = RunStatus.cancelled
        final_text = progress_summary("the run was cancelled", run.rounds, run.steps, run.last_text)
    except Exception as unexpected:  # a bug must still end the run in an orderly way
        logger.exception("agent run %s failed", prepared.run_id)
        status, error = RunStatus.failed, f"{type(unexpected).__name__}: {unexpected}"
        error_status = 500
        emit(
            AgentEvent(
                EventType.error,
                {"message": "internal error; see the server log", "status": error_status},
            )
        )
        final_text = progress_summary(
            "an internal error occurred", run.rounds, run.steps, run.last_text
        )
    result = AgentResult(
        run_id=prepared.run_id,
        status=status,
        final_text=final_text,
        rounds=run.rounds,
        cost_chf=round(run.budget.spent_chf, 6),
        usage=run.budget.usage,
        models=run.models,
        duration_ms=(time.perf_counter() - started) * 1000,
        workflow_id=prepared.workflow_id,
        error=error,
        error_status=error_status,
        model_text=run.last_text,
    )
    await _finish(run, result)
    return result


async def _finish(run: RunState, result: AgentResult) -> None:
    record_status(run, result.status)
    run.emit(
        AgentEvent(EventType.final, {"status": result.status.value, "text": result.final_text})
    )
    summary = {
        "run_id": result.run_id,
        "status": result.status.value,
        "rounds": result.rounds,
        "usage": result.usage_dict(),
        "cost_chf": result.cost_chf,
        "duration_ms": round(result.duration_ms, 3),
        "models": result.models,
    }
    run.emit(AgentEvent(EventType.agent_summary, summary))
    # Storage work after a cancellation must not be interrupted by a second one.
    await asyncio.shield(_persist_end(run, result))


async def _persist_end(run: RunState, result: AgentResult) -> None:
    try:
        await record_answer(run.deps, run.prepared, result.final_text, result.status.value)
    except Exception:
        logger.exception("could not store the answer of agent run %s", result.run_id)
    await run.trace.finish(
        RunFinish(
            status=result.status.value,
            final_text=result.final_text,
            rounds=result.rounds,
            cost_chf=result.cost_chf,
            input_tokens=result.usage.input_tokens,
            output_tokens=result.usage.output_tokens,
            models=result.models,
            duration_ms=result.duration_ms,
            error=result.error,
        )
    )
    # Last, once the status is final, streamed and stored: the workflow memory (its own
    # timeout and budget) never holds a run's outcome, and its failure is only logged.
    await remember_run(run, result)


async def _loop(run: RunState, pinned: Message) -> str:
    deps, config = run.deps, run.config
    environment = deps.toolbox_environment or await load_toolbox_environment(
        deps.runtime, run.context
    )
    run.toolboxes = ToolboxState.initial(environment, config.initial_toolboxes)
    driver = AgentDriver(**loop_settings(run), run=run, pinned=pinned)
    return await run_rounds(run, driver, f"the limit of {config.max_rounds} rounds was reached")


@dataclass(kw_only=True)
class AgentDriver(LoopDriver):
    """The agent's configuration of the tool loop: per round the knowledge hook, the offer
    from the active toolboxes, one model round with its corrections (a tool call written as
    text, a reply that is no answer), then the round's records and the round-memory hook."""

    run: RunState
    pinned: Message
    knowledge: str = ""
    response: AiResponse | None = None
    round_started: float = 0.0
    activations_before: int = 0

    def step_scope(self, step: int) -> AbstractContextManager[Any]:
        return round_span(step)

    async def prepare_step(self, step: int) -> StepOffer:
        self.run.rounds = step
        self.round_started = time.perf_counter()
        self.knowledge = await knowledge_block(self.run)
        return round_offer(self.run)

    async def model_turn(self, step: int, offer: StepOffer) -> ModelTurn | None:
        response = await model_round(self.run, self.pinned, offer.definitions, self.knowledge)
        self.run.conversation.notice = ""  # said once, in the round after the one it is about
        try:
            self.response = settle_text_tool_calls(self.run, response, offer)
        except RetryRound:
            return None
        return ModelTurn(self.response.text, self.response.tool_calls)

    async def answer(self, step: int, turn: ModelTurn) -> str | None:
        try:
            final_text = settle_final_answer(self.run, turn.text, self.knowledge)
        except RetryRound:
            return None
        self.run.conversation.add_assistant(final_text, ())
        _trace_round(self.run, step, self.round_started, 0)
        return final_text

    async def before_tools(self, step: int, turn: ModelTurn) -> None:
        self.run.conversation.add_assistant(turn.text, turn.calls)
        if turn.text:
            self.run.last_text = turn.text
        self.activations_before = toolbox_activations(self.run)

    async def after_tools(self, step: int, turn: ModelTurn, outcomes: list[ToolOutcome]) -> None:
        run = self.run
        record_outcomes(run, outcomes, self.activations_before)
        failed = all(outcome.is_error for outcome in outcomes)
        offered = run.offer.by_name if run.offer else {}
        for outcome in outcomes:
            run.succeeded_calls.record(step, offered.get(outcome.call.name), outcome)
        run.failed_round_errors = (
            [f"{o.call.name}: {o.content[:160]}" for o in outcomes] if failed else []
        )
        run.conversation.notice = run.succeeded_calls.loop_notice(outcomes, run.prepared.prompt)
        _trace_round(run, step, self.round_started, len(outcomes))
        assert self.response is not None
        await remember_round(run, self.response, outcomes)

    async def end_step(self, step: int) -> None:
        await self.run.trace.flush()

    async def run_call(self, tool: Tool | None, call: ToolCall) -> ToolOutcome:
        calls = self.run.succeeded_calls
        if (repeated := calls.repeat(tool, call)) is not None:
            return repeated
        return calls.mark_repeated_read(self.run.rounds, tool, await super().run_call(tool, call))


def _trace_round(run: RunState, round_index: int, started: float, tool_calls: int) -> None:
    run.trace.add(
        TraceKind.round,
        {"tool_calls": tool_calls},
        round_index=round_index,
        duration_ms=(time.perf_counter() - started) * 1000,
    )
