"""A model caught in a loop is stopped: over real HTTP, the gateway stops reading a stream
whose tail repeats one piece, closes the connection (the server writes no more), keeps the
text up to the loop and bills what was generated."""

from __future__ import annotations

import asyncio
import json

import pytest
from sqlalchemy import select

from agentur.ai.messages import StreamDone, TextDelta, ToolCall
from agentur.ai.providers.openai import OpenAIProvider
from agentur.storage.models.ai import AiLedgerEntry
from tests.ai.gateway.conftest import ask, spec
from tests.ai.wire_servers import WireServer, openai_stream

INTRO = "I will read the notes first.\n"
LINE = json.dumps({"name": "list_files", "arguments": {"search": "Alpenblick", "range": "Q1"}})
LOOP_LINES = 400


def _provider(server: WireServer) -> OpenAIProvider:
    return OpenAIProvider(
        api_key="k", base_url=server.base_url, models=[spec("openai", "loopy", price=(1.0, 2.0))]
    )


async def _stream_ended(server: WireServer) -> list[int]:
    """The server's count of events written, once its handler noticed the closed connection
    (it would take ~1 s to write them all)."""
    for _ in range(300):
        if server.events_written:
            break
        await asyncio.sleep(0.01)
    return server.events_written


async def _stream(ai, context) -> tuple[str, StreamDone]:
    streamed: list[str] = []
    done = None
    async for event in ai.stream(ask("List the files"), context):
        if isinstance(event, TextDelta):
            streamed.append(event.text)
        elif isinstance(event, StreamDone):
            done = event
    assert done is not None
    return "".join(streamed), done


async def test_a_looping_reply_is_stopped_and_cut_after_its_first_repeat(
    gateway, tenants, runtime, openai_server: WireServer
) -> None:
    member = await tenants.member()
    ai = gateway(_provider(openai_server))
    chunks = [INTRO] + [LINE + "\n"] * LOOP_LINES
    openai_server.enqueue(openai_stream(*chunks, output_tokens=9_999).stalled(0.002))
    streamed, done = await _stream(ai, member.context)
    response = done.response
    assert response.finish_reason == "repetition"
    assert response.text == INTRO + LINE + "\n"
    # The caller saw the loop only as far as it ran before the stop.
    assert streamed.startswith(INTRO + LINE) and len(streamed) < len("".join(chunks)) // 4
    # The server was cut off: it wrote a fraction of its ~400 events.
    await ai.aclose()
    (written,) = await _stream_ended(openai_server)
    assert written < LOOP_LINES // 4
    # No usage came with the stream; what was generated is billed as estimated.
    async with runtime.database.session() as session:
        (row,) = list(await session.scalars(select(AiLedgerEntry)))
    assert row.output_tokens == pytest.approx(len(streamed) / 4, abs=1)
    assert row.input_tokens > 0 and response.cost_chf > 0
    assert row.cost_chf == pytest.approx(response.cost_chf)


async def test_a_tool_call_looping_in_its_arguments_is_dropped_the_complete_one_kept(
    gateway, tenants, openai_server: WireServer
) -> None:
    member = await tenants.member()
    ai = gateway(_provider(openai_server))
    calls = [
        ToolCall("c1", "read_file", {"file_id": "f-1"}),
        ToolCall("c2", "write_file", {"name": "a.txt", "content": "Zeile. " * 2_000}),
    ]
    openai_server.enqueue(openai_stream(tool_calls=calls, arguments_chunk_size=16))
    _, done = await _stream(ai, member.context)
    await ai.aclose()
    assert done.response.finish_reason == "repetition"
    assert done.response.tool_calls == (calls[0],)


async def test_the_stop_can_be_switched_off(gateway, tenants, openai_server: WireServer) -> None:
    member = await tenants.member()
    ai = gateway(_provider(openai_server), stop_repeated_output_chars=0)
    chunks = [INTRO] + [LINE + "\n"] * LOOP_LINES
    openai_server.enqueue(openai_stream(*chunks))
    _, done = await _stream(ai, member.context)
    await ai.aclose()
    assert done.response.finish_reason == "stop"
    assert done.response.text == "".join(chunks)
    assert openai_server.events_written == [len(chunks) + 4]  # role, finish, usage, [DONE]
