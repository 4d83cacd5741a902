"""The two interfaces the agent loop calls out through, implemented by the knowledge store.

Both are optional and must never break a run: the loop logs their failures and goes on (A5).
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
