"""Windowing of large tool results: never cut silently.

A result longer than the limit goes back to the model as its first window plus
`total_length` and the exact call that reads on (`read_tool_result`). The whole text stays in
the run's `ResultStore` for the rest of the run.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

from pydantic import BaseModel

READ_TOOL_RESULT = "read_tool_result"


def render_result(result: Any) -> str:
    """The text the model gets for a tool's raw return value."""
    if isinstance(result, str):
        return result
    if isinstance(result, BaseModel):
        return result.model_dump_json()
    return json.dumps(result, ensure_ascii=False, default=str)


@dataclass
class ResultStore:
    """Full texts of windowed results of one run, by the tool call id."""

    texts: dict[str, str] = field(default_factory=dict)

    def window(self, call_id: str, text: str, limit: int) -> str:
        if len(text) <= limit:
            return text
        self.texts[call_id] = text
        return json.dumps(
            {
                "window": text[:limit],
                "offset": 0,
                "limit": limit,
                "total_length": len(text),
                "next_offset": limit,
                "note": f"This result is longer than {limit} characters; this is its first "
                f"window. Read on with {READ_TOOL_RESULT}"
                f'{{"result_id": "{call_id}", "offset": {limit}}}.',
            },
            ensure_ascii=False,
        )
