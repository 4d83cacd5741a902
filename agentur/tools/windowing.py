"""Windowing of large tool results: never cut silently.

A result longer than the limit goes back to the model as its first window plus
`total_length` and the exact call that reads on (`read_tool_result`). The whole text stays in
the run's `ResultStore` for the rest of the run.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

from pydantic import BaseModel, Field

from agentur.errors import NotFoundError
from agentur.tools.tool import Tool, ToolContext

READ_TOOL_RESULT = "read_tool_result"
RESULT_STORE_KEY = "tool_results"


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


class ReadToolResultArguments(BaseModel):
    result_id: str = Field(description="The id named in the windowed result.")
    offset: int = Field(default=0, ge=0, description="Character offset to start at.")
    limit: int | None = Field(default=None, ge=1, description="Characters to return.")


async def _read_tool_result(args: ReadToolResultArguments, context: ToolContext) -> dict:
    store: ResultStore | None = context.extras.get(RESULT_STORE_KEY)
    text = store.texts.get(args.result_id) if store else None
    if text is None:
        raise NotFoundError(f"no windowed result {args.result_id!r} in this run")
    max_chars = context.extras.get("max_result_chars", 20_000)
    # Leave room for the envelope so the window itself is never windowed again.
    limit = max(1, min(args.limit or max_chars, max_chars - 300))
    content = text[args.offset : args.offset + limit]
    end = args.offset + len(content)
    return {
        "result_id": args.result_id,
        "window": content,
        "offset": args.offset,
        "total_length": len(text),
        "next_offset": end if end < len(text) else None,
    }


TOOLS = [
    Tool(
        name=READ_TOOL_RESULT,
        description="Read a further window of a tool result that was too long to return at once.",
        arguments=ReadToolResultArguments,
        handler=_read_tool_result,
        read_only=True,
        toolbox="core",
    )
]
