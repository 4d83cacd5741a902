"""Talking to a connected MCP server (streamable HTTP) with the official `mcp` SDK.

One short session per operation (list, call): nothing stays open between tool calls, so a run
holds no sockets and a restarted server is simply reached again. Every request (redirects
included) goes through the egress transport: checked by the egress rule, connected to the
checked address. Errors become `SourceError` with the server's message, never the token.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass
from typing import Any

import httpx2
import mcp_types as types
from mcp import Client
from mcp.client.streamable_http import streamable_http_client
from mcp.shared.exceptions import MCPError

from agentur.connections.http_access import SourceError
from agentur.connections.reach import connection_policy
from agentur.egress.check_target import check_url
from agentur.egress.pinned_transport import Httpx2EgressTransport


@dataclass(frozen=True, slots=True)
class McpAccess:
    url: str
    token: str  # "" when the server needs none
    timeout_seconds: float


@asynccontextmanager
async def _session(access: McpAccess, statuses: list[int]) -> AsyncIterator[Client]:
    policy = connection_policy(access.timeout_seconds)
    # Refused here with a clear reason; the transport checks every request (and hop) again.
    await check_url(access.url, policy)
    headers = {"Authorization": f"Bearer {access.token}"} if access.token else {}

    async def record(response: httpx2.Response) -> None:
        statuses.append(response.status_code)  # the SDK's own errors do not name the status

    http = httpx2.AsyncClient(
        headers=headers,
        timeout=access.timeout_seconds,
        event_hooks={"response": [record]},
        # The SDK follows no redirects; any request it makes is checked and pinned here.
        transport=Httpx2EgressTransport(policy),
        trust_env=False,  # a proxy from the environment would hide the real target
    )
    async with Client(streamable_http_client(access.url, http_client=http)) as client:
        yield client


async def _run(access: McpAccess, what: str, operation: Any) -> Any:
    statuses: list[int] = []
    try:
        async with asyncio.timeout(access.timeout_seconds), _session(access, statuses) as client:
            return await operation(client)
    except TimeoutError as error:
        raise SourceError(
            f"MCP server: {what} took longer than {access.timeout_seconds:g} s"
        ) from error
    except (MCPError, httpx2.HTTPError, OSError, ExceptionGroup) as error:
        failed = [status for status in statuses if status >= 400]
        answered = f" (HTTP {failed[-1]})" if failed else ""
        raise SourceError(f"MCP server failed {what}{answered}: {_first(error)}") from error


def _first(error: BaseException) -> str:
    while isinstance(error, BaseExceptionGroup) and error.exceptions:
        error = error.exceptions[0]
    return str(error) or type(error).__name__


async def list_remote_tools(access: McpAccess) -> list[types.Tool]:
    async def operation(client: Client) -> list[types.Tool]:
        return list((await client.list_tools()).tools)

    return await _run(access, "tools/list", operation)


async def call_remote_tool(
    access: McpAccess, name: str, arguments: dict[str, Any]
) -> types.CallToolResult:
    async def operation(client: Client) -> types.CallToolResult:
        return await client.call_tool(name, arguments)

    return await _run(access, f"tools/call {name}", operation)


async def check(access: McpAccess) -> None:
    """The connection test: the server answers `tools/list`."""
    await list_remote_tools(access)
