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

from agentur import __version__
from agentur.agent.settings import AgentSettings
from agentur.api.mcp.authenticate import BearerAuth
from agentur.api.mcp.handlers import McpHandlers
from agentur.api.mcp.settings import McpServerSettings

MCP_PATH = "/mcp"


def mount_mcp(app: FastAPI) -> Callable[[], AbstractAsyncContextManager[Any]]:
    """Adds the `/mcp` route; returns what the app lifespan enters to serve it."""
    handlers = McpHandlers(lambda: app.state.runtime, McpServerSettings(), AgentSettings())
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
    app.router.add_route(
        MCP_PATH, BearerAuth(StreamableHTTPASGIApp(manager)), include_in_schema=False
    )
    return manager.run
