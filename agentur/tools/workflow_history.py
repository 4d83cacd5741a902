"""Workflow history tools: the caller's own workflows and their messages."""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, Field

from agentur.tools.tool import Tool, ToolContext
from agentur.tools.workspace_access import workflow_service

MESSAGE_PREVIEW_CHARS = 4_000
# Far beyond any one user's history, and a bound every schema consumer reads as a number.
MAX_TOOL_OFFSET = 1_000_000


class ListWorkflowHistoryArguments(BaseModel):
    limit: int = Field(default=20, ge=1, le=200)
    offset: int = Field(default=0, ge=0, le=MAX_TOOL_OFFSET)


async def list_workflow_history(
    args: ListWorkflowHistoryArguments, context: ToolContext
) -> dict[str, Any]:
    async with workflow_service(context) as workflows:
        items = await workflows.list(limit=args.limit, offset=args.offset)
    return {
        "workflows": [
            {
                "workflow_id": w.id,
                "title": w.title,
                "updated_at": w.updated_at.isoformat(),
                "is_current": w.id == context.workflow_id,
            }
            for w in items
        ],
        "offset": args.offset,
    }


class ReadWorkflowMessagesArguments(BaseModel):
    workflow_id: str
    offset: int = Field(default=0, ge=0, le=MAX_TOOL_OFFSET, description="Message offset.")
    limit: int = Field(default=20, ge=1, le=200, description="Messages to return.")


async def read_workflow_messages(
    args: ReadWorkflowMessagesArguments, context: ToolContext
) -> dict[str, Any]:
    async with workflow_service(context) as workflows:
        messages, total = await workflows.messages(
            args.workflow_id, offset=args.offset, limit=args.limit
        )
    end = args.offset + len(messages)
    return {
        "messages": [
            {
                "sequence": m.sequence,
                "role": m.role,
                # A long message is shown as its first window with its full length.
                "content": m.content[:MESSAGE_PREVIEW_CHARS],
                "total_length": len(m.content),
                "created_at": m.created_at.isoformat(),
            }
            for m in messages
        ],
        "total": total,
        "next_offset": end if end < total else None,
    }


TOOLS: list[Tool] = [
    Tool("list_workflow_history", "List your recent workflows (conversations).",
         ListWorkflowHistoryArguments, list_workflow_history, read_only=True),
    Tool("read_workflow_messages", "Read messages of one of your workflows.",
         ReadWorkflowMessagesArguments, read_workflow_messages, read_only=True),
]  # fmt: skip
