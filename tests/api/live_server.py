"""An ASGI app served by a real uvicorn on 127.0.0.1, in the test's own event loop (so it
shares the test's runtime and database engine)."""

from __future__ import annotations

import asyncio
import socket
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

import uvicorn


@asynccontextmanager
async def live_server(app: object) -> AsyncIterator[str]:
    """Serve `app`; yields its base URL (`http://127.0.0.1:<port>`)."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = int(probe.getsockname()[1])
    config = uvicorn.Config(app, host="127.0.0.1", port=port, log_level="warning", lifespan="on")  # type: ignore[arg-type]
    server = uvicorn.Server(config)
    task = asyncio.create_task(server.serve())
    try:
        async with asyncio.timeout(20):
            while not server.started:
                assert not task.done(), "uvicorn stopped before it started"
                await asyncio.sleep(0.02)
        yield f"http://127.0.0.1:{port}"
    finally:
        server.should_exit = True
        await task
