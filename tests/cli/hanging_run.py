"""An agent run that hangs in its model call, for tests that act on a run in flight
(cancel it from another worker, kill its worker).

The model is an OpenAI-compatible wire server whose `default_reply` is `hang_on_wait`."""

from __future__ import annotations

import asyncio
import time
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

import httpx

from tests.ai.wire_servers import WireServer
from tests.ai.wire_servers.openai_replies import openai_stream
from tests.ai.wire_servers.server import ReceivedRequest, Reply

WAITING_PROMPT = "WAIT for me"


def hang_on_wait(request: ReceivedRequest) -> Reply:
    # A run whose prompt says WAIT hangs in its model call until it is cancelled.
    reply = openai_stream("noted")
    return reply.delayed(60) if "WAIT" in request.body.decode() else reply


@asynccontextmanager
async def run_in_model_call(
    client: httpx.AsyncClient, model: WireServer
) -> AsyncIterator[tuple[str, httpx.Response]]:
    """Start a run and yield (run id, its event stream) once it is inside its model call."""
    sent = len(model.received)
    async with client.stream(
        "POST",
        "/v1/agent/runs",
        json={"prompt": WAITING_PROMPT},
        headers={"Accept": "text/event-stream"},
    ) as stream:
        run_id = stream.headers["x-agent-run-id"]
        deadline = time.monotonic() + 30
        while len(model.received) == sent:
            assert time.monotonic() < deadline, "the run never called the model"
            await asyncio.sleep(0.05)
        yield run_id, stream
