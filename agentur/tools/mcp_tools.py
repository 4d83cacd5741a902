"""Tools of the caller's MCP connections, loaded when the `mcp` toolbox is activated.

Each remote tool becomes a `Tool` in the `mcp` toolbox, so it runs through the lifecycle
wrapper like any other (time limit, windowed result, events, trace). Its arguments are checked
against the server's JSON schema before the call, so the model gets a correctable message.
A tool counts as read-only — may run in parallel and needs no write role — only when the
server declares `readOnlyHint: true`; anything undeclared is treated as changing data.
"""

from __future__ import annotations

import re
from typing import Any, ClassVar

import jsonschema
import mcp_types as types
from pydantic import BaseModel, ConfigDict

from agentur.connections.check_connection import stored_settings
from agentur.connections.kind.mcp import McpSettings
from agentur.connections.mcp_client import McpAccess, call_remote_tool, list_remote_tools
from agentur.errors import InvalidInputError
from agentur.tools.connection_access import connection_service
from agentur.tools.tool import Tool, ToolContext

MCP_TOOLBOX = "mcp"
MAX_NAME = 64  # what providers accept as a function name


class RemoteArguments(BaseModel):
    """Arguments as the model sent them; the remote server's schema is the contract."""

    model_config = ConfigDict(extra="allow")
    remote_schema: ClassVar[dict[str, Any]] = {"type": "object"}

    @classmethod
    def model_json_schema(cls, *args: Any, **kwargs: Any) -> dict[str, Any]:  # type: ignore[override]
        return cls.remote_schema


def _name(prefix: str, tool_name: str) -> str:
    return re.sub(r"[^A-Za-z0-9_-]", "_", f"{prefix}__{tool_name}")[:MAX_NAME]


def remote_tool(access: McpAccess, prefix: str, remote: types.Tool, neutralize: bool) -> Tool:
    schema = dict(remote.input_schema or {"type": "object"})
    arguments = type(f"{remote.name}_arguments", (RemoteArguments,), {"remote_schema": schema})

    async def handler(args: BaseModel, context: ToolContext) -> str:
        given = args.model_dump()
        try:
            jsonschema.validate(given, schema)
        except jsonschema.ValidationError as error:
            where = ".".join(str(part) for part in error.absolute_path) or "(arguments)"
            raise InvalidInputError(
                f"invalid arguments for {remote.name}: {where}: {error.message}"
            ) from error
        result = await call_remote_tool(access, remote.name, given)
        text = "\n".join(
            part.text if isinstance(part, types.TextContent) else f"[{part.type} content]"
            for part in result.content
        )
        if result.is_error:
            raise InvalidInputError(f"{remote.name} failed: {text}")
        if neutralize:  # a `neutralize` connection: the model sees placeholders
            text = await context.runtime.ai.neutralize_text(
                text, context.request, workflow_id=context.workflow_id
            )
        return text

    hints = remote.annotations
    return Tool(
        name=_name(prefix, remote.name),
        description=(remote.description or remote.name)[:1000],
        arguments=arguments,
        handler=handler,
        read_only=bool(hints and hints.read_only_hint is True),
        toolbox=MCP_TOOLBOX,
        connection_kind=MCP_TOOLBOX,
    )


async def load_mcp_tools(context: ToolContext) -> list[Tool]:
    """The tools of every working MCP connection the caller may use (own and shared)."""
    async with connection_service(context) as service:
        timeout = service.settings.connection_timeout_seconds
        accesses = [
            (
                connection.display_name,
                connection.neutralize,
                McpAccess(
                    stored_settings(connection, McpSettings).url,
                    service.credentials(connection).password,
                    timeout,
                ),
            )
            for connection in await service.list("mcp")
            if connection.status != "failed"
        ]
    tools: list[Tool] = []
    for prefix, neutralize, access in accesses:
        tools.extend(
            remote_tool(access, prefix, remote, neutralize)
            for remote in await list_remote_tools(access)
        )
    return tools
