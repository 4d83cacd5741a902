"""The mutable state of one run, shared by the loop's parts, and the stop signal."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from agentur.agent.config import AgentConfig
from agentur.agent.conversation_manager import ConversationManager
from agentur.agent.dependencies import AgentDependencies, RunStatus
from agentur.agent.hooks import RoundRecord
from agentur.agent.prepare_run import PreparedRun
from agentur.agent.progress_summary import Step
from agentur.agent.repeated_calls import SucceededCalls
from agentur.agent.trace import TraceKind, TraceRecorder
from agentur.context import RequestContext
from agentur.tool_loop.budget import Budget
from agentur.tool_loop.events import AgentEvent, EventSink, EventType
from agentur.tool_loop.prepare_step import StepOffer
from agentur.tools.tool import ToolContext
from agentur.tools.toolboxes import ToolboxState


class StopRun(Exception):
    """Ends the loop with a status; the reason becomes part of the progress summary.
    `error_status` is the HTTP status of the gateway error behind it, if one was."""

    def __init__(self, status: RunStatus, reason: str, error_status: int | None = None) -> None:
        super().__init__(reason)
        self.status = status
        self.reason = reason
        self.error_status = error_status


@dataclass
class RunState:
    prepared: PreparedRun
    deps: AgentDependencies
    emit: EventSink
    conversation: ConversationManager
    budget: Budget
    trace: TraceRecorder
    toolboxes: ToolboxState | None = None
    offer: StepOffer | None = None
    rounds: int = 0
    models: list[str] = field(default_factory=list)
    steps: list[Step] = field(default_factory=list)
    last_text: str = ""
    # A corrective message about a tool call written as text was sent and not yet heeded.
    text_call_corrected: bool = False
    # A corrective message about a reply that was no answer was sent (check_final_answer),
    # about this reply.
    answer_corrected: bool = False
    rejected_answer: str = ""
    # A corrective message about a requested change that no tool made was sent.
    change_corrected: bool = False
    # A corrective message about a quote that nothing the run read holds was sent.
    quote_corrected: bool = False
    # A corrective message about a reply that announced a step instead of taking it was sent.
    step_corrected: bool = False
    # Successful calls that changed something; an identical call is not run again.
    succeeded_calls: SucceededCalls = field(default_factory=SucceededCalls)
    # The errors of the last tool round when every one of its calls failed, else empty.
    failed_round_errors: list[str] = field(default_factory=list)
    # What this run's tool handlers receive (built once the run starts).
    tool_context: ToolContext | None = None
    # This run's tool rounds, for the workflow-memory hook at its end.
    round_records: list[RoundRecord] = field(default_factory=list)

    @property
    def context(self) -> RequestContext:
        return self.prepared.context

    @property
    def config(self) -> AgentConfig:
        return self.prepared.config


def record_status(run: RunState, status: RunStatus, **data: Any) -> None:
    payload = {"status": status.value, "round": run.rounds, **data}
    run.emit(AgentEvent(EventType.status, payload))
    run.trace.add(TraceKind.status, payload, round_index=run.rounds or None)
