"""Anthropic Messages adapter against a real local HTTP server in Anthropic's wire format."""

from __future__ import annotations

import httpx

from agentur.ai.messages import Message, StreamDone, TextDelta, ToolCall, ToolCallDelta, Usage
from agentur.ai.providers.anthropic import ANTHROPIC_VERSION, AnthropicProvider
from tests.ai.providers.helpers import WEATHER_CALL, ask, collect, conversation, spec
from tests.ai.wire_servers import (
    WireServer,
    anthropic_stream,
    anthropic_text,
    anthropic_tool_use,
)

CLAUDE = spec("anthropic", "claude-sonnet-4-5", max_output_tokens=8000)


def provider(server: WireServer, http_client: httpx.AsyncClient) -> AnthropicProvider:
    return AnthropicProvider(
        client=http_client, api_key="sk-ant-test", base_url=server.base_url, models=[CLAUDE]
    )


async def test_complete_maps_system_tools_and_tool_results(
    http_client: httpx.AsyncClient, anthropic_server: WireServer
) -> None:
    anthropic_server.enqueue(
        anthropic_text(
            "Rain again.",
            input_tokens=100,
            output_tokens=4,
            cache_read_tokens=30,
            cache_creation_tokens=5,
        )
    )
    second = ToolCall("call_2", "get_weather", {"city": "Thun"})
    request = conversation(temperature=0.5)
    # Two results in a row (parallel calls) must land in one user turn.
    messages = (
        *request.messages[:2],
        Message.assistant("Let me check.", (WEATHER_CALL, second)),
        Message.tool_result(WEATHER_CALL, "12 °C, rain"),
        Message.tool_result(second, "failed", is_error=True),
        request.messages[-1],
    )
    response = await provider(anthropic_server, http_client).complete(
        CLAUDE, type(request)(request.operation, messages, request.tools, request.options)
    )

    received = anthropic_server.last
    assert received.path == "/v1/messages"
    assert received.headers["x-api-key"] == "sk-ant-test"
    assert received.headers["anthropic-version"] == ANTHROPIC_VERSION
    assert "authorization" not in received.headers
    body = received.json
    assert body["model"] == "claude-sonnet-4-5"
    # The system prompt carries a cache breakpoint (it covers the tools before it); without a
    # volatile message there is none in the turns.
    assert body["system"] == [
        {"type": "text", "text": "You are terse.", "cache_control": {"type": "ephemeral"}}
    ]
    assert body["max_tokens"] == 8000  # the model's maximum when the request sets none
    assert body["temperature"] == 0.5
    assert body["tools"] == [
        {
            "name": "get_weather",
            "description": "Current weather for a city.",
            "input_schema": conversation().tools[0].parameters,
        }
    ]
    assert body["messages"] == [
        {"role": "user", "content": [{"type": "text", "text": "Weather in Bern?"}]},
        {
            "role": "assistant",
            "content": [
                {"type": "text", "text": "Let me check."},
                {
                    "type": "tool_use",
                    "id": "call_abc-123",
                    "name": "get_weather",
                    "input": {"city": "Bern"},
                },
                {
                    "type": "tool_use",
                    "id": "call_2",
                    "name": "get_weather",
                    "input": {"city": "Thun"},
                },
            ],
        },
        {
            "role": "user",
            "content": [
                {"type": "tool_result", "tool_use_id": "call_abc-123", "content": "12 °C, rain"},
                {
                    "type": "tool_result",
                    "tool_use_id": "call_2",
                    "content": "failed",
                    "is_error": True,
                },
                {"type": "text", "text": "And tomorrow?"},
            ],
        },
    ]
    assert response.text == "Rain again."
    assert response.usage == Usage(
        input_tokens=135, output_tokens=4, cached_tokens=30, cache_write_tokens=5
    )
    assert (response.model, response.finish_reason) == ("anthropic:claude-sonnet-4-5", "stop")


async def test_tool_use_reply_and_stop_reasons(
    http_client: httpx.AsyncClient, anthropic_server: WireServer
) -> None:
    anthropic_server.enqueue(
        anthropic_tool_use("get_weather", {"city": "Chur"}, tool_id="toolu_7", text="Checking."),
        anthropic_text("…", stop_reason="max_tokens"),
        anthropic_text("no", stop_reason="refusal"),
    )
    adapter = provider(anthropic_server, http_client)
    called = await adapter.complete(CLAUDE, ask(max_output_tokens=64, response_format="json"))
    assert anthropic_server.last.json["max_tokens"] == 64
    assert "JSON" in anthropic_server.last.json["system"][0]["text"]
    assert called.text == "Checking."
    assert called.tool_calls == (ToolCall("toolu_7", "get_weather", {"city": "Chur"}),)
    assert called.finish_reason == "tool_calls"
    assert (await adapter.complete(CLAUDE, ask())).finish_reason == "length"
    assert (await adapter.complete(CLAUDE, ask())).finish_reason == "content_filter"


async def test_stream_reassembles_text_and_tool_use(
    http_client: httpx.AsyncClient, anthropic_server: WireServer
) -> None:
    call = ToolCall("toolu_1", "get_weather", {"city": "Sion", "unit": "C"})
    anthropic_server.enqueue(
        anthropic_stream(
            "One ",
            "moment.",
            tool_calls=[call],
            input_tokens=40,
            output_tokens=15,
            cache_read_tokens=8,
        )
    )
    events = await collect(provider(anthropic_server, http_client).stream(CLAUDE, conversation()))

    assert anthropic_server.last.json["stream"] is True
    assert [e.text for e in events if isinstance(e, TextDelta)] == ["One ", "moment."]
    deltas = [e for e in events if isinstance(e, ToolCallDelta)]
    assert deltas[0] == ToolCallDelta(0, "toolu_1", "get_weather", "")
    assert len(deltas) > 3 and all(d.index == 0 for d in deltas)
    done = events[-1]
    assert isinstance(done, StreamDone)
    assert done.response.text == "One moment."
    assert done.response.tool_calls == (call,)
    assert done.response.usage == Usage(48, 15, 8)
    assert done.response.finish_reason == "tool_calls"
