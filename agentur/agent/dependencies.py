"""What a run needs from outside, handed in explicitly (so tests and benches control it), and
what it hands back."""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum
from typing import TYPE_CHECKING

from agentur.agent.hooks import RagContextBuilder, RoundMemoryStore, WorkflowMemoryStore
from agentur.agent.run_heartbeat import RunHeartbeat
from agentur.agent.settings import AgentSettings
from agentur.ai.messages import Usage
from agentur.ai.service import AiService
from agentur.tools.registry import ToolRegistry
from agentur.tools.toolboxes import ToolboxEnvironment

if TYPE_CHECKING:
    from agentur.runtime_parts import RuntimeParts


class RunStatus(StrEnum):
    running = "running"
    completed = "completed"
    budget_exceeded = "budget_exceeded"
    max_rounds_reached = "max_rounds_reached"
    failed = "failed"
    cancelled = "cancelled"


@dataclass
class AgentDependencies:
    ai: AiService
    settings: AgentSettings
    # Storage for tools, workflows and the trace; None runs fully in memory (benches).
    runtime: RuntimeParts | None = None
    registry: ToolRegistry | None = None  # None: every discovered tool
    rag: RagContextBuilder | None = None
    round_memory: RoundMemoryStore | None = None
    workflow_memory: WorkflowMemoryStore | None = None
    # None: feature codes read from storage (connections arrive with their issue).
    toolbox_environment: ToolboxEnvironment | None = None
    # None: the gateway's configured rate.
    usd_to_chf: float | None = None
    # This process's heartbeat for its stored runs; None: nobody else watches them (no runtime).
    heartbeat: RunHeartbeat | None = None

    @property
    def stores_trace(self) -> bool:
        return self.runtime is not None and self.settings.agent_store_trace

    def tool_registry(self) -> ToolRegistry:
        if self.registry is None:
            self.registry = ToolRegistry.discover()
        return self.registry

    def exchange_rate(self) -> float:
        return self.usd_to_chf if self.usd_to_chf is not None else self.ai.usd_to_chf


@dataclass(frozen=True, slots=True)
class AgentResult:
    run_id: str
    status: RunStatus
    final_text: str
    rounds: int
    cost_chf: float
    usage: Usage
    models: list[str]
    duration_ms: float
    workflow_id: str | None = None
    error: str | None = None
    # The HTTP status of the failure that ended the run (a gateway error's, 500 for a bug);
    # None when it ended by its own limits, a cancellation, or completed.
    error_status: int | None = None
    # The model's last text: the answer of a completed run, the partial one of a stopped run.
    model_text: str = ""

    def usage_dict(self) -> dict[str, int]:
        return {
            "input_tokens": self.usage.input_tokens,
            "output_tokens": self.usage.output_tokens,
            "cached_tokens": self.usage.cached_tokens,
            "total_tokens": self.usage.total_tokens,
        }
