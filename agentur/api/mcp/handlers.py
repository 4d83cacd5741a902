"""The MCP request handlers: tools and file resources (text; bytes for binary files) of the
authenticated caller.

Tool calls go through `run_tool`, the lifecycle wrapper the agent uses (authorization from the
key's role, argument validation, egress checks, time limit, windowed result), so an MCP client
can do nothing the caller's agent could not.
"""

from __future__ import annotations

import base64
import uuid
from dataclasses import dataclass
from typing import Any

import mcp_types as types
from mcp.server.context import ServerRequestContext

from agentur.agent.settings import AgentSettings
from agentur.agent.tool_round import egress_policy, web_policy
from agentur.ai.messages import ToolCall
from agentur.api.mcp.authenticate import caller
from agentur.api.mcp.exposed_tools import exposed_tools, mcp_tool
from agentur.api.mcp.settings import McpServerSettings
from agentur.errors import InvalidInputError
from agentur.runtime_parts import RuntimeParts
from agentur.tools.registry import ToolRegistry
from agentur.tools.run_tool import ToolLimits, run_tool
from agentur.tools.tool import ToolContext
from agentur.workspace.files import FileService
from agentur.workspace.text_window import decode_text

FILE_URI = "agentur://files/"


@dataclass
class McpHandlers:
    runtime_of: Any  # () -> RuntimeParts; the app's runtime exists only after its lifespan starts

    @property
    def runtime(self) -> RuntimeParts:
        return self.runtime_of()

    @property
    def settings(self) -> McpServerSettings:
        return self.runtime.all_settings.mcp

    @property
    def agent_settings(self) -> AgentSettings:
        return self.runtime.all_settings.agent

    def _tools(self, ctx: ServerRequestContext[Any]):  # type: ignore[no-untyped-def]
        context = caller(ctx.request)
        registry = ToolRegistry.discover()
        return context, exposed_tools(registry, context, web=self.settings.mcp_web_tools)

    async def list_tools(
        self, ctx: ServerRequestContext[Any], params: types.PaginatedRequestParams | None
    ) -> types.ListToolsResult:
        _, tools = self._tools(ctx)
        return types.ListToolsResult(tools=[mcp_tool(tool) for tool in tools.values()])

    async def call_tool(
        self, ctx: ServerRequestContext[Any], params: types.CallToolRequestParams
    ) -> types.CallToolResult:
        context, tools = self._tools(ctx)
        call = ToolCall(f"mcp_{uuid.uuid4().hex[:12]}", params.name, dict(params.arguments or {}))
        tool_context = ToolContext(
            request=context,
            runtime=self.runtime,
            web_egress=web_policy(self.agent_settings),
            offered_tools=sorted(tools),
        )
        limits = ToolLimits(
            timeout_seconds=self.agent_settings.agent_tool_timeout_seconds,
            max_result_chars=self.agent_settings.agent_max_tool_result_chars,
            egress=egress_policy(self.agent_settings),
        )
        outcome = await run_tool(tools.get(call.name), call, tool_context, limits, lambda _: None)
        return types.CallToolResult(
            content=[types.TextContent(type="text", text=outcome.content)],
            is_error=outcome.is_error,
        )

    def _files(self, session: Any, ctx: ServerRequestContext[Any]) -> FileService:
        runtime = self.runtime
        return FileService(session, runtime.blobs, caller(ctx.request), runtime.workspace_limits)

    async def list_resources(
        self, ctx: ServerRequestContext[Any], params: types.PaginatedRequestParams | None
    ) -> types.ListResourcesResult:
        async with self.runtime.database.session() as session:
            listing = await self._files(session, ctx).list(limit=self.settings.mcp_max_resources)
        return types.ListResourcesResult(
            resources=[
                types.Resource(
                    name=file.name,
                    uri=FILE_URI + file.id,
                    mime_type=file.mime_type,
                    size=file.size,
                )
                for file in listing.files
            ]
        )

    async def read_resource(
        self, ctx: ServerRequestContext[Any], params: types.ReadResourceRequestParams
    ) -> types.ReadResourceResult:
        uri = str(params.uri)
        if not uri.startswith(FILE_URI):
            raise InvalidInputError(f"unknown resource {uri!r}; agentur names files {FILE_URI}<id>")
        async with self.runtime.database.session() as session:
            file, data = await self._files(session, ctx).read_bytes(uri.removeprefix(FILE_URI))
        try:
            text = decode_text(data, file.mime_type)
        except InvalidInputError:  # PDFs, images, …: the bytes, as MCP carries them
            blob = base64.b64encode(data).decode()
            content: types.TextResourceContents | types.BlobResourceContents = (
                types.BlobResourceContents(uri=uri, mime_type=file.mime_type, blob=blob)
            )
        else:
            content = types.TextResourceContents(uri=uri, mime_type=file.mime_type, text=text)
        return types.ReadResourceResult(contents=[content])
