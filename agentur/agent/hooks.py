"""The interfaces the agent loop calls out through, and the plain records it hands them.

The agent owns these protocols; the knowledge store implements them structurally, without
importing the agent, and only `agentur/runtime.py` composes the two. Every hook is optional and
must never break a run: the loop logs its failures and goes on.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Protocol

from agentur.context import RequestContext


class RagContextBuilder(Protocol):
    async def __call__(
        self, prompt: str, context: RequestContext, *, workflow_id: str | None
    ) -> str:
        """A formatted context block for this round ('' when there is nothing to add)."""
        ...


@dataclass(frozen=True, slots=True)
class ToolResultRecord:
    tool_name: str
    arguments: dict[str, Any]
    result_preview: str
    is_error: bool = False


@dataclass(frozen=True, slots=True)
class RoundRecord:
    """What one agent round did, for semantic reuse after the conversation is summarized."""

    workflow_id: str
    run_id: str
    round_index: int
    file_refs: list[str] = field(default_factory=list)  # workspace file ids touched
    tool_results: list[ToolResultRecord] = field(default_factory=list)
    decisions: str = ""  # the model's text of this round


class RoundMemoryStore(Protocol):
    async def save_round(self, record: RoundRecord, context: RequestContext) -> None: ...


@dataclass(frozen=True, slots=True)
class RunRecord:
    """What a completed run asked, used and answered, for the workflow's memory."""

    workflow_id: str
    run_id: str
    prompt: str
    final_text: str
    file_refs: list[str] = field(default_factory=list)  # workspace file ids touched in any round
    tool_results: list[ToolResultRecord] = field(default_factory=list)


class WorkflowMemoryStore(Protocol):
    async def save_run(self, record: RunRecord, context: RequestContext) -> None:
        """Extract and keep the run's facts and entities for later runs of its workflow."""
        ...
