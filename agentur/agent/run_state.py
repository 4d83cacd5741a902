"""The mutable state of one run, shared by the loop's parts, and the stop signal."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from agentur.agent.budget import Budget
from agentur.agent.config import AgentConfig
from agentur.agent.conversation_manager import ConversationManager
from agentur.agent.dependencies import AgentDependencies, RunStatus
from agentur.agent.events import AgentEvent, EventSink, EventType
from agentur.agent.hooks import RoundRecord
from agentur.agent.prepare_run import PreparedRun
from agentur.agent.progress_summary import Step
from agentur.agent.trace import TraceKind, TraceRecorder
from agentur.ai.messages import ToolDefinition
from agentur.context import RequestContext
from agentur.tools.tool import Tool
from agentur.tools.toolboxes import ToolboxState


class StopRun(Exception):
    """Ends the loop with a status; the reason becomes part of the progress summary.
    `error_status` is the HTTP status of the gateway error behind it, if one was."""

    def __init__(self, status: RunStatus, reason: str, error_status: int | None = None) -> None:
        super().__init__(reason)
        self.status = status
        self.reason = reason
        self.error_status = error_status


@dataclass(frozen=True, slots=True)
class RoundOffer:
    """The tools a round offers, with their definitions and lookup by name — built again only
    when the active toolboxes change, since nothing else that shapes it changes within a run."""

    active: frozenset[str]
    tools: tuple[Tool, ...]
    definitions: tuple[ToolDefinition, ...]
    by_name: dict[str, Tool]
    names: list[str]  # sorted, for the "not offered" message


@dataclass
class RunState:
    prepared: PreparedRun
    deps: AgentDependencies
    emit: EventSink
    conversation: ConversationManager
    budget: Budget
    trace: TraceRecorder
    toolboxes: ToolboxState | None = None
    offer: RoundOffer | None = None
    rounds: int = 0
    models: list[str] = field(default_factory=list)
    steps: list[Step] = field(default_factory=list)
    last_text: str = ""
    # A corrective message about a tool call written as text was sent and not yet heeded.
    text_call_corrected: bool = False
    # A corrective message about a reply that was no answer was sent (check_final_answer).
    answer_corrected: bool = False
    # The errors of the last tool round when every one of its calls failed, else empty.
    failed_round_errors: list[str] = field(default_factory=list)
    extras: dict[str, Any] = field(default_factory=dict)
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
