"""`list_connections`: the caller's connections (own and shared) — never their credentials."""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, Field

from agentur.connections.service import describe
from agentur.tools.connection_access import connection_service
from agentur.tools.tool import Tool, ToolContext


class ListConnectionsArguments(BaseModel):
    kind: str | None = Field(default=None, description="Only this kind, e.g. 'mail' or 'webdav'.")


async def list_connections(args: ListConnectionsArguments, context: ToolContext) -> dict[str, Any]:
    async with connection_service(context) as service:
        return {"connections": [describe(c) for c in await service.list(args.kind)]}


TOOLS: list[Tool] = [
    Tool("list_connections", "List your connections to mail servers and data sources.",
         ListConnectionsArguments, list_connections, read_only=True),
]  # fmt: skip
