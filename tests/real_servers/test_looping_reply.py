"""A real model told to repeat itself is stopped by the gateway, and the real server stops
generating: llama-server (Qwen2.5-Coder-0.5B) writes one line over and over; the stream ends
with finish reason `repetition` after ~1,024 characters of loop, and the server's only slot is
free again at once (it would otherwise go on to the output limit, minutes on a CPU)."""

from __future__ import annotations

import asyncio
import time

import httpx
import pytest

from agentur.ai.messages import AiRequest, CallOptions, Message, StreamDone
from agentur.ai.operation_types import OperationType
from agentur.ai.provider_factory import build_providers
from agentur.ai.providers.openai_compatible_settings import OpenAICompatibleServerSettings
from agentur.ai.service import AiService
from agentur.ai.settings import AiSettings
from agentur.context import RequestContext, Role

pytestmark = pytest.mark.slow

LINE = "list_files ok"
OUTPUT_LIMIT = 2_048  # ~200 s at this machine's ~10 tokens/s if the loop were not stopped


async def _generating(llama_server: str) -> bool:
    root = llama_server.removesuffix("/v1")
    async with httpx.AsyncClient(timeout=10) as client:
        slots = (await client.get(f"{root}/slots")).raise_for_status().json()
    return any(slot.get("is_processing") for slot in slots)


async def test_a_looping_real_model_is_stopped_and_its_server_freed(llama_server: str) -> None:
    settings = AiSettings()
    server = OpenAICompatibleServerSettings(openai_compatible_base_url=llama_server)
    ai = AiService(build_providers(settings, server=server), settings=settings)
    request = AiRequest(
        operation=OperationType.agent,
        messages=(Message.user(f"Write the line `{LINE}` 400 times, one per line. Nothing else."),),
        options=CallOptions(temperature=0.0, max_output_tokens=OUTPUT_LIMIT),
    )
    done = None
    try:
        async for event in ai.stream(request, RequestContext("u", "m", Role.member)):
            if isinstance(event, StreamDone):
                done = event
    finally:
        await ai.aclose()
    assert done is not None
    response = done.response
    assert response.finish_reason == "repetition", (response.finish_reason, response.text[-300:])
    assert response.text.count(LINE) <= 2, response.text[-300:]
    assert response.usage.output_tokens < OUTPUT_LIMIT // 2  # estimated: what was generated
    # The server noticed the closed connection: its one slot is free within seconds (not
    # after the rest of the output limit).
    deadline = time.monotonic() + 20
    while await _generating(llama_server):
        assert time.monotonic() < deadline, "the server is still generating"
        await asyncio.sleep(0.2)
