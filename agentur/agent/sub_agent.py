"""Sub-agents: the same loop, nested inside a tool call of a parent run.

A sub-agent gets its own system prompt and tool set and inherits the rest from its parent:
- the *budget object itself*, so its model calls are charged to the parent run and a spent
  budget stops both (the parent's next round then stops with `budget_exceeded`);
- the rounds the parent has left after the current one;
- the request context, so `require_neutralization` (and the tenant) apply to every sub-call;
- the parent's trace: its entries are added there, marked `nested`, under the parent's round.
It ends with its answer, or — when the budget, the rounds or a failure stop it — with the same
progress summary a run gives, which goes back to the parent's model as the tool's result.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from dataclasses import dataclass, replace
from typing import Any

from agentur.agent.config import AgentConfig
from agentur.agent.conversation_manager import ConversationManager
from agentur.agent.dependencies import RunStatus
from agentur.agent.model_round import model_round
from agentur.agent.prepare_run import PreparedRun
from agentur.agent.progress_summary import progress_summary
from agentur.agent.run_state import RunState, StopRun
from agentur.agent.tool_round import (
    loop_settings,
    record_outcomes,
    run_rounds,
    tool_context,
    tool_definition,
    toolbox_activations,
)
from agentur.agent.trace import TraceKind, TraceRecorder
from agentur.tool_loop.events import AgentEvent, EventType
from agentur.tool_loop.loop import LoopDriver, ModelTurn
from agentur.tool_loop.prepare_step import StepOffer
from agentur.tool_loop.run_tool import ToolOutcome
from agentur.tools.sub_agent_port import SubAgentAnswer, SubAgentRequest, SubAgentRunner
from agentur.tools.tool import ToolDeps

logger = logging.getLogger(__name__)

# Lifecycle events of the sub-agent's tools reach the parent's stream (marked nested); its text
# is not the parent's answer, so it is not streamed.
FORWARDED_EVENTS = frozenset({EventType.tool_call, EventType.tool_result})


class NestedTrace(TraceRecorder):
    """Adds the sub-agent's entries to the parent's trace; the parent persists them."""

    def __init__(self, parent: RunState, label: str) -> None:
        super().__init__(parent.prepared.run_id, parent.prepared.context.mandate_id, None)
        self.parent = parent
        self.label = label

    def add(
        self,
        kind: str,
        data: dict[str, Any],
        *,
        round_index: int | None = None,
        duration_ms: float | None = None,
    ) -> None:
        nested = {**data, "nested": self.label, "sub_round": round_index}
        self.parent.trace.add(kind, nested, round_index=self.parent.rounds, duration_ms=duration_ms)


def _forward(parent: RunState, label: str) -> Callable[[AgentEvent], None]:
    def emit(event: AgentEvent) -> None:
        if event.type in FORWARDED_EVENTS:
            parent.emit(AgentEvent(event.type, {**event.data, "nested": label}))

    return emit


def sub_agent_runner(parent: RunState) -> SubAgentRunner:
    async def run(request: SubAgentRequest) -> SubAgentAnswer:
        return await run_sub_agent(parent, request)

    return run


async def run_sub_agent(parent: RunState, request: SubAgentRequest) -> SubAgentAnswer:
    remaining_rounds = parent.config.max_rounds - parent.rounds
    if remaining_rounds < 1:
        return SubAgentAnswer(
            RunStatus.max_rounds_reached.value, "no rounds are left for a sub-agent", 0, 0.0
        )
    config = AgentConfig(
        max_rounds=min(remaining_rounds, 100), temperature=parent.config.temperature
    )
    prepared = PreparedRun(
        run_id=parent.prepared.run_id,
        prompt=request.question,
        config=config,
        context=parent.context,
        workflow_id=parent.prepared.workflow_id,
    )
    child = RunState(
        prepared=prepared,
        # No knowledge or memory hooks: the sub-agent reads tables, not the workspace.
        deps=replace(parent.deps, rag=None, round_memory=None, workflow_memory=None),
        emit=_forward(parent, request.label),
        conversation=ConversationManager(parent.context, role_text=request.system_prompt),
        budget=parent.budget,
        trace=NestedTrace(parent, request.label),
        models=parent.models,
    )
    child.tool_context = tool_context(
        child, ToolDeps(feature_instance_id=request.feature_instance_id)
    )
    offer = StepOffer.of(tuple(request.tools), tool_definition)
    child.offer = offer
    spent_before = parent.budget.spent_chf
    child.conversation.add_user(request.question)
    pinned = child.conversation.turns[-1]
    status, text = RunStatus.completed, ""
    try:
        text = await _loop(child, pinned, offer)
    except StopRun as stop:
        status = stop.status
        text = progress_summary(stop.reason, child.rounds, child.steps, child.last_text)
    cost = round(parent.budget.spent_chf - spent_before, 6)
    child.trace.add(
        TraceKind.status, {"status": status.value, "rounds": child.rounds, "cost_chf": cost}
    )
    return SubAgentAnswer(status.value, text, child.rounds, cost)


async def _loop(child: RunState, pinned: Any, offer: StepOffer) -> str:
    driver = SubAgentDriver(**loop_settings(child), run=child, pinned=pinned, offer=offer)
    rounds = child.config.max_rounds
    return await run_rounds(child, driver, f"the {rounds} rounds left of the parent run were used")


@dataclass(kw_only=True)
class SubAgentDriver(LoopDriver):
    """The sub-agent's configuration of the tool loop: a fixed tool set, no hooks, no
    corrections; every model text is recorded, and an answer ends it."""

    run: RunState
    pinned: Any
    offer: StepOffer

    async def prepare_step(self, step: int) -> StepOffer:
        self.run.rounds = step
        return self.offer

    async def model_turn(self, step: int, offer: StepOffer) -> ModelTurn:
        response = await model_round(self.run, self.pinned, offer.definitions, "")
        self.run.conversation.add_assistant(response.text, response.tool_calls)
        if response.text:
            self.run.last_text = response.text
        return ModelTurn(response.text, response.tool_calls)

    async def after_tools(self, step: int, turn: ModelTurn, outcomes: list[ToolOutcome]) -> None:
        record_outcomes(self.run, outcomes, toolbox_activations(self.run))
