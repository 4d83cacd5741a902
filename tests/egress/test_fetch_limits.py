"""Size, time and redirect limits of one fetch: each refuses clearly, nothing is cut."""

from __future__ import annotations

import asyncio

import pytest

from agentur.egress.check_target import EgressRefusedError
from agentur.egress.fetch import fetch
from agentur.egress.policy import AllowList, EgressPolicy
from agentur.errors import TooLargeError
from tests.egress.listeners import listening, redirect


def _policy(port: int, **limits: float) -> EgressPolicy:
    return EgressPolicy(allowed=AllowList.parse(f"127.0.0.1:{port}"), **limits)  # type: ignore[arg-type]


@pytest.mark.parametrize("declared", [True, False])
async def test_an_oversized_body_is_refused_not_cut(declared: bool) -> None:
    head = b"HTTP/1.1 200 OK\r\nConnection: close\r\n"
    head += b"Content-Length: 5000\r\n\r\n" if declared else b"\r\n"
    server = await listening("127.0.0.1", lambda _: head + b"x" * 5000)
    try:
        with pytest.raises(TooLargeError, match="larger than 1000 bytes"):
            await fetch(f"http://127.0.0.1:{server.port}/", _policy(server.port, max_bytes=1000))
    finally:
        await server.stop()


async def test_a_slow_server_runs_into_the_time_limit() -> None:
    async def silent(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        await asyncio.sleep(5)
        writer.close()

    server = await asyncio.start_server(silent, "127.0.0.1", 0)
    port = server.sockets[0].getsockname()[1]
    try:
        with pytest.raises(EgressRefusedError, match="longer than 0.3 s"):
            await fetch(f"http://127.0.0.1:{port}/", _policy(port, timeout_seconds=0.3))
    finally:
        server.close()


async def test_redirects_beyond_the_limit_are_refused() -> None:
    server = await listening("127.0.0.1")
    server.handler = redirect(f"http://127.0.0.1:{server.port}/again")
    try:
        with pytest.raises(EgressRefusedError, match="more than 2 redirects"):
            await fetch(f"http://127.0.0.1:{server.port}/", _policy(server.port, max_redirects=2))
        assert len(server.requests) == 3
    finally:
        await server.stop()
