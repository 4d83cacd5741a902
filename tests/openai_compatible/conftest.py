"""A real uvicorn server on 127.0.0.1 over the test's runtime, and the official `openai`
client (unmodified) pointed at its `/openai/v1`.

The server runs as a task in the test's own event loop, so it shares the runtime (its
database engine belongs to that loop) while clients still talk to it over TCP."""

from __future__ import annotations

import asyncio
import socket
from collections.abc import AsyncIterator, Callable

import openai
import pytest
import uvicorn
from fastapi import FastAPI

from tests.conftest import Member


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


@pytest.fixture
async def base_url(app: FastAPI) -> AsyncIterator[str]:
    port = _free_port()
    # No lifespan: the shared test app serves no MCP and runs no background task.
    config = uvicorn.Config(app, host="127.0.0.1", port=port, log_level="warning", lifespan="off")
    server = uvicorn.Server(config)
    task = asyncio.create_task(server.serve())
    for _ in range(500):
        if server.started:
            break
        await asyncio.sleep(0.01)
    assert server.started, "uvicorn did not start"
    try:
        yield f"http://127.0.0.1:{port}/openai/v1"
    finally:
        server.should_exit = True
        await task


@pytest.fixture
def openai_client(base_url: str) -> Callable[[Member], openai.AsyncOpenAI]:
    """A client authenticated as `member` (its API key is the OpenAI key); no retries, so a
    failure shows as it happened."""

    def make(member: Member) -> openai.AsyncOpenAI:
        return openai.AsyncOpenAI(api_key=member.key, base_url=base_url, max_retries=0)

    return make
