"""Builds the MCP server and mounts it at `/mcp` in the FastAPI app.

Stateless streamable HTTP with JSON responses: every request stands alone (authenticated on
its own), so any worker can answer any request and no session state needs sharing. The MCP
wire format is its own standard, so the route stays out of the OpenAPI document.
"""

from __future__ import annotations

from collections.abc import Callable
from contextlib import AbstractAsyncContextManager
from typing import Any

from fastapi import FastAPI
from mcp.server.lowlevel import Server
from mcp.server.streamable_http_manager import StreamableHTTPASGIApp, StreamableHTTPSessionManager
from starlette.requests import Request
from starlette.types import ASGIApp, Receive, Scope, Send

from agentur import __version__
from agentur.api.mcp import resource_metadata
from agentur.api.mcp.authenticate import BearerAuth
from agentur.api.mcp.handlers import McpHandlers
from agentur.api.mcp.settings import McpServerSettings
from agentur.api.problems import problem

MCP_PATH = "/mcp"


def mount_mcp(app: FastAPI) -> Callable[[], AbstractAsyncContextManager[Any]]:
    """Adds the `/mcp` route; returns what the app lifespan enters to serve it."""

    def settings() -> McpServerSettings:
        mcp: McpServerSettings = app.state.runtime.all_settings.mcp
        return mcp

    handlers = McpHandlers(lambda: app.state.runtime)
    server: Server[Any] = Server(
        "agentur",
        version=__version__,
        instructions="agentur: workspace files, knowledge search and reading of indexed documents.",
        on_list_tools=handlers.list_tools,
        on_call_tool=handlers.call_tool,
        on_list_resources=handlers.list_resources,
        on_read_resource=handlers.read_resource,
    )
    # The bearer key is the only credential (no cookies), so DNS rebinding gains nothing.
    manager = StreamableHTTPSessionManager(app=server, json_response=True, stateless=True)

    def challenge(request: Request, sent: bool) -> str:
        return resource_metadata.challenge(request, settings(), MCP_PATH, sent)

    transport = BearerAuth(StreamableHTTPASGIApp(manager), challenge)
    app.router.add_route(MCP_PATH, PostOnly(transport), include_in_schema=False)
    metadata = resource_metadata.metadata_endpoint(settings, MCP_PATH)
    for path in (resource_metadata.WELL_KNOWN + MCP_PATH, resource_metadata.WELL_KNOWN):
        app.router.add_route(path, metadata, methods=["GET"], include_in_schema=False)
    return manager.run


class PostOnly:
    """Stateless mode has no server-to-client stream to open with GET and no session to end
    with DELETE: both answer 405 at once (as the transport spec allows) instead of an empty
    event stream held open until the client gives up."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "http" and scope["method"] != "POST":
            refusal = problem(
                405,
                "Method Not Allowed",
                "this MCP server is stateless: send JSON-RPC messages with POST; it opens no "
                "event stream (GET) and keeps no session (DELETE)",
                headers={"Allow": "POST"},
            )
            await refusal(scope, receive, send)
            return
        await self.app(scope, receive, send)
