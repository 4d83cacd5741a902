"""The wire servers themselves: what they record and how they answer (plain httpx client)."""

from __future__ import annotations

import httpx
import pytest

from tests.ai.wire_servers import (
    Reply,
    WireServer,
    anthropic_stream,
    openai_error,
    openai_stream,
    openai_text,
)


async def test_records_request_and_answers_json_in_order(openai_server: WireServer) -> None:
    openai_server.enqueue(openai_text("first"), openai_error(429, "slow", retry_after=3))
    async with httpx.AsyncClient(base_url=openai_server.base_url) as client:
        first = await client.post(
            "/chat/completions?x=1", json={"model": "m"}, headers={"Authorization": "Bearer k"}
        )
        second = await client.post("/chat/completions", json={})
        third = await client.post("/chat/completions", json={})
    assert first.json()["choices"][0]["message"]["content"] == "first"
    assert (second.status_code, second.headers["retry-after"]) == (429, "3")
    assert third.status_code == 400 and "no scripted reply" in third.text
    received = openai_server.received[0]
    assert (received.path, received.query, received.json) == (
        "/v1/chat/completions",
        {"x": "1"},
        {"model": "m"},
    )
    assert received.headers["authorization"] == "Bearer k"
    assert openai_server.pending == 0


async def test_streams_sse_and_callable_replies(anthropic_server: WireServer) -> None:
    anthropic_server.enqueue(lambda request: anthropic_stream(request.json["echo"]))
    async with (
        httpx.AsyncClient(base_url=anthropic_server.url) as client,
        client.stream("POST", "/v1/messages", json={"echo": "hi"}) as response,
    ):
        body = "".join([chunk async for chunk in response.aiter_text()])
    assert response.headers["content-type"] == "text/event-stream"
    assert '"text": "hi"' in body and body.rstrip().endswith('{"type": "message_stop"}')


async def test_broken_stream_is_a_protocol_error(openai_server: WireServer) -> None:
    openai_server.enqueue(openai_stream("a", "b").broken_after(2))
    async with httpx.AsyncClient(base_url=openai_server.base_url) as client:
        with pytest.raises(httpx.RemoteProtocolError):
            async with client.stream("POST", "/chat/completions", json={}) as response:
                async for _ in response.aiter_lines():
                    pass


async def test_slow_reply_times_out_and_default_reply(openai_server: WireServer) -> None:
    openai_server.enqueue(openai_text("late").delayed(5))
    openai_server.default_reply = Reply.json({"ok": True})
    async with httpx.AsyncClient(base_url=openai_server.base_url, timeout=0.2) as client:
        with pytest.raises(httpx.ReadTimeout):
            await client.post("/chat/completions", json={})
        assert (await client.post("/anything", json={})).json() == {"ok": True}
