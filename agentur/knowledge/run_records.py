"""What the knowledge store reads from the agent's round and run records.

Structural protocols the store owns: the agent's own dataclasses (agentur/agent/hooks.py) satisfy
them without either side importing the other; only agentur/runtime.py puts the two together.
Read-only properties, so a frozen dataclass with list fields matches.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, Protocol


class ToolResultFacts(Protocol):
    @property
    def tool_name(self) -> str: ...
    @property
    def arguments(self) -> Mapping[str, Any]: ...
    @property
    def result_preview(self) -> str: ...
    @property
    def is_error(self) -> bool: ...


class RoundFacts(Protocol):
    """One agent round: the workspace files it touched, its tool results, the model's text."""

    @property
    def workflow_id(self) -> str: ...
    @property
    def run_id(self) -> str: ...
    @property
    def round_index(self) -> int: ...
    @property
    def file_refs(self) -> Sequence[str]: ...
    @property
    def tool_results(self) -> Sequence[ToolResultFacts]: ...
    @property
    def decisions(self) -> str: ...


class RunFacts(Protocol):
    """One completed run: the question, the final answer and every tool result on the way."""

    @property
    def workflow_id(self) -> str: ...
    @property
    def run_id(self) -> str: ...
    @property
    def prompt(self) -> str: ...
    @property
    def final_text(self) -> str: ...
    @property
    def file_refs(self) -> Sequence[str]: ...
    @property
    def tool_results(self) -> Sequence[ToolResultFacts]: ...


def tool_result_dict(result: ToolResultFacts) -> dict[str, Any]:
    return {
        "tool_name": result.tool_name,
        "arguments": dict(result.arguments),
        "result_preview": result.result_preview,
        "is_error": result.is_error,
    }
