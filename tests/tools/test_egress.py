"""Egress checks: no loopback, private, link-local or metadata targets, no redirects into them."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator

import pytest
from pydantic import BaseModel

from agentur.agent.config import AgentConfig
from agentur.agent.events import EventType
from agentur.agent.run_agent import run_agent
from agentur.ai.providers.scripted import ScriptedTurn
from agentur.context import RequestContext, Role
from agentur.errors import TooLargeError
from agentur.tools.egress import EgressPolicy, EgressRefusedError, check_url, fetch
from agentur.tools.tool import Tool, ToolContext
from tests.agent.support import Recorder, deps, scripted


@pytest.mark.parametrize(
    "url",
    [
        "http://127.0.0.1/",
        "http://localhost:8000/admin",
        "http://[::1]/",
        "http://10.1.2.3/",
        "http://192.168.0.1/",
        "http://172.16.5.4/",
        "http://169.254.169.254/latest/meta-data/",
        "http://metadata.google.internal/computeMetadata/v1/",
        "http://0.0.0.0/",
        "http://[::ffff:127.0.0.1]/",
        "file:///etc/passwd",
        "ftp://example.com/",
    ],
)
async def test_private_and_internal_targets_are_refused(url: str) -> None:
    with pytest.raises(EgressRefusedError):
        await check_url(url, EgressPolicy())


async def test_public_address_passes() -> None:
    await check_url("http://93.184.215.14/", EgressPolicy())  # a literal public address


async def _serve(handler) -> tuple[asyncio.Server, int]:  # type: ignore[no-untyped-def]
    server = await asyncio.start_server(handler, "127.0.0.1", 0)
    return server, server.sockets[0].getsockname()[1]


@pytest.fixture
async def servers() -> AsyncIterator[tuple[int, int, list[str]]]:
    """A 'trusted' server that redirects into a second, internal one."""
    hits: list[str] = []

    async def internal(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        await reader.readuntil(b"\r\n\r\n")
        hits.append("internal")
        writer.write(b"HTTP/1.1 200 OK\r\nContent-Length: 6\r\nConnection: close\r\n\r\nsecret")
        await writer.drain()
        writer.close()

    inner, inner_port = await _serve(internal)

    async def trusted(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        request = await reader.readuntil(b"\r\n\r\n")
        if b"GET /big" in request:
            body = b"x" * 5000
            writer.write(b"HTTP/1.1 200 OK\r\nConnection: close\r\n\r\n" + body)
        elif b"GET /ok" in request:
            writer.write(b"HTTP/1.1 200 OK\r\nContent-Length: 5\r\nConnection: close\r\n\r\nhello")
        else:
            location = f"http://localhost:{inner_port}/".encode()
            writer.write(
                b"HTTP/1.1 302 Found\r\nLocation: " + location + b"\r\n"
                b"Content-Length: 0\r\nConnection: close\r\n\r\n"
            )
        await writer.drain()
        writer.close()

    outer, outer_port = await _serve(trusted)
    yield outer_port, inner_port, hits
    for server in (outer, inner):
        server.close()
        await server.wait_closed()


async def test_redirect_into_an_internal_target_is_refused(servers) -> None:  # type: ignore[no-untyped-def]
    outer_port, _, hits = servers
    policy = EgressPolicy(allowed_hosts=frozenset({f"127.0.0.1:{outer_port}"}))
    assert (await fetch(f"http://127.0.0.1:{outer_port}/ok", policy)).body == b"hello"
    with pytest.raises(EgressRefusedError, match="localhost"):
        await fetch(f"http://127.0.0.1:{outer_port}/redirect", policy)
    assert hits == []  # the internal server was never contacted


async def test_oversized_body_is_refused_not_cut(servers) -> None:  # type: ignore[no-untyped-def]
    outer_port, _, _ = servers
    policy = EgressPolicy(max_bytes=1000, allowed_hosts=frozenset({f"127.0.0.1:{outer_port}"}))
    with pytest.raises(TooLargeError):
        await fetch(f"http://127.0.0.1:{outer_port}/big", policy)


class Url(BaseModel):
    url: str


async def test_lifecycle_wrapper_refuses_url_arguments_before_the_handler_runs() -> None:
    ran: list[str] = []

    async def read_url(args: Url, _: ToolContext) -> str:
        ran.append(args.url)
        return "fetched"

    tool = Tool("read_url", "r", Url, read_url, read_only=True, url_arguments=("url",))
    ai, _ = scripted([ScriptedTurn.call("read_url", "c1", url="http://127.0.0.1:9/x")])
    recorder = Recorder()
    await run_agent(
        "x",
        AgentConfig(max_rounds=1),
        RequestContext("u", "m", Role.member),
        deps(ai, [tool]),
        emit=recorder,
    )
    result = recorder.of(EventType.tool_result)[0]
    assert result["is_error"] and "loopback" in result["content"]
    assert ran == []
