"""`read_tool_result`: the next window of a result the lifecycle wrapper windowed (the run's
`ResultStore`, agentur/tool_loop/results.py), so a long result is never cut silently."""

from __future__ import annotations

from pydantic import BaseModel, Field

from agentur.errors import NotFoundError
from agentur.tool_loop.results import READ_TOOL_RESULT
from agentur.tools.tool import Tool, ToolContext


class ReadToolResultArguments(BaseModel):
    result_id: str = Field(description="The id named in the windowed result.")
    offset: int = Field(default=0, ge=0, description="Character offset to start at.")
    limit: int | None = Field(default=None, ge=1, description="Characters to return.")


async def _read_tool_result(args: ReadToolResultArguments, context: ToolContext) -> dict:
    text = context.results.texts.get(args.result_id)
    if text is None:
        raise NotFoundError(f"no windowed result {args.result_id!r} in this run")
    max_chars = context.max_result_chars
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
