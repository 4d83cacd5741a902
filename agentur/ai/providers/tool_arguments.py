"""Tool-call arguments: parse the JSON text models send, and assemble streamed fragments."""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

from agentur.ai.messages import ToolCall

# Models sometimes emit invalid JSON arguments. We pass the raw text on under this key instead
# of failing the call: the tool's argument validation then reports it to the model, which can
# correct itself in the next round (a retry of the same call would cost the same and may not).
RAW_ARGUMENTS_KEY = "_raw_arguments"


def parse_tool_arguments(raw: str | dict[str, Any] | None) -> dict[str, Any]:
    if isinstance(raw, dict):
        return raw
    if raw is None or not raw.strip():
        return {}
    try:
        parsed = json.loads(raw)
    except ValueError:
        return {RAW_ARGUMENTS_KEY: raw}
    return parsed if isinstance(parsed, dict) else {RAW_ARGUMENTS_KEY: raw}


@dataclass(slots=True)
class _PartialCall:
    call_id: str | None = None
    name: str = ""
    fragments: list[str] = field(default_factory=list)


class ToolCallAssembler:
    """Collects streamed tool-call pieces by index; the id and name arrive once, arguments in
    fragments."""

    def __init__(self) -> None:
        self._calls: dict[int, _PartialCall] = {}

    def add(self, index: int, call_id: str | None, name: str | None, fragment: str) -> None:
        partial = self._calls.setdefault(index, _PartialCall())
        partial.call_id = partial.call_id or call_id
        partial.name = partial.name or (name or "")
        if fragment:
            partial.fragments.append(fragment)

    def calls(self) -> tuple[ToolCall, ...]:
        return tuple(
            ToolCall(
                partial.call_id or f"call_{index}",
                partial.name,
                parse_tool_arguments("".join(partial.fragments)),
            )
            for index, partial in sorted(self._calls.items())
        )
