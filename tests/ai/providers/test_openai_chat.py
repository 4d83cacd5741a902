"""OpenAI chat-completions adapter against a real local HTTP server in OpenAI's wire format."""

from __future__ import annotations

import json

import httpx
import pytest

from agentur.ai.messages import StreamDone, TextDelta, ToolCall, ToolCallDelta, Usage
from agentur.ai.providers.base import ErrorKind, ProviderError
from agentur.ai.providers.openai import OpenAIProvider
from agentur.ai.providers.tool_arguments import RAW_ARGUMENTS_KEY
from tests.ai.providers.helpers import WEATHER_CALL, ask, collect, conversation, spec
from tests.ai.wire_servers import (
    Reply,
    WireServer,
    openai_embeddings,
    openai_message,
    openai_stream,
    openai_text,
    openai_tool_call,
)

GPT = spec("openai", "gpt-4.1-mini")


def provider(server: WireServer, http_client: httpx.AsyncClient, *models) -> OpenAIProvider:
    return OpenAIProvider(
        client=http_client,
        api_key="sk-test-key",
        base_url=server.base_url,
        models=list(models) or [GPT],
    )


async def test_complete_sends_conversation_and_parses_reply(
    http_client: httpx.AsyncClient, openai_server: WireServer
) -> None:
    openai_server.enqueue(
        openai_text("Sunny.", input_tokens=120, output_tokens=7, cached_tokens=64)
    )
    response = await provider(openai_server, http_client).complete(
        GPT, conversation(temperature=0.2)
    )

    received = openai_server.last
    assert received.path == "/v1/chat/completions"
    assert received.headers["authorization"] == "Bearer sk-test-key"
    body = received.json
    assert body["model"] == "gpt-4.1-mini"
    assert body["temperature"] == 0.2
    assert "stream" not in body
    assert body["messages"] == [
        {"role": "system", "content": "You are terse."},
        {"role": "user", "content": "Weather in Bern?"},
        {
            "role": "assistant",
            "content": "Let me check.",
            "tool_calls": [
                {
                    "id": "call_abc-123",
                    "type": "function",
                    "function": {"name": "get_weather", "arguments": '{"city": "Bern"}'},
                }
            ],
        },
        {"role": "tool", "tool_call_id": "call_abc-123", "content": "12 °C, rain"},
        {"role": "user", "content": "And tomorrow?"},
    ]
    tool = body["tools"][0]
    assert tool["type"] == "function"
    assert tool["function"]["name"] == "get_weather"
    assert tool["function"]["parameters"]["required"] == ["city"]
    assert "strict" not in tool["function"]

    assert response.text == "Sunny."
    assert response.usage == Usage(input_tokens=120, output_tokens=7, cached_tokens=64)
    assert (response.model, response.provider, response.finish_reason) == (
        "openai:gpt-4.1-mini",
        "openai",
        "stop",
    )
    assert response.cost_chf == 0.0 and response.latency_ms > 0


@pytest.mark.parametrize("name", ["o1", "o3-mini", "o4-mini", "gpt-5", "gpt-5.1-mini"])
async def test_reasoning_models_get_max_completion_tokens_and_no_temperature(
    http_client: httpx.AsyncClient, openai_server: WireServer, name: str
) -> None:
    model = spec("openai", name)
    openai_server.enqueue(openai_text("ok"))
    await provider(openai_server, http_client, model).complete(
        model, ask(temperature=0.7, max_output_tokens=500)
    )
    body = openai_server.last.json
    assert body["max_completion_tokens"] == 500
    assert "max_tokens" not in body and "temperature" not in body


async def test_other_models_get_max_tokens_and_temperature(
    http_client: httpx.AsyncClient, openai_server: WireServer
) -> None:
    openai_server.enqueue(openai_text("ok"))
    await provider(openai_server, http_client).complete(
        GPT, ask(temperature=0.0, max_output_tokens=300)
    )
    body = openai_server.last.json
    assert (body["max_tokens"], body["temperature"]) == (300, 0.0)
    assert "max_completion_tokens" not in body


async def test_tool_calls_and_finish_reasons(
    http_client: httpx.AsyncClient, openai_server: WireServer
) -> None:
    openai_server.enqueue(
        openai_tool_call("get_weather", {"city": "Zürich"}, call_id="call_9"),
        openai_message("cut", finish_reason="length"),
        Reply.json(
            {
                "choices": [
                    {
                        "message": {
                            "content": None,
                            "tool_calls": [
                                {"id": "c1", "function": {"name": "f", "arguments": "{not json"}}
                            ],
                        },
                        "finish_reason": "stop",  # as some local servers say
                    }
                ]
            }
        ),
    )
    adapter = provider(openai_server, http_client)
    called = await adapter.complete(GPT, conversation())
    assert called.tool_calls == (ToolCall("call_9", "get_weather", {"city": "Zürich"}),)
    assert (called.text, called.finish_reason) == ("", "tool_calls")
    assert (await adapter.complete(GPT, ask())).finish_reason == "length"
    broken = await adapter.complete(GPT, ask())
    assert broken.finish_reason == "tool_calls"
    assert broken.tool_calls[0].arguments == {RAW_ARGUMENTS_KEY: "{not json"}
    assert broken.usage == Usage()


async def test_response_formats(http_client: httpx.AsyncClient, openai_server: WireServer) -> None:
    schema = {"type": "object", "properties": {"a": {"type": "integer"}}}
    openai_server.enqueue(openai_text("{}"), openai_text("{}"))
    adapter = provider(openai_server, http_client)
    await adapter.complete(GPT, ask(response_format="json"))
    assert openai_server.last.json["response_format"] == {"type": "json_object"}
    await adapter.complete(GPT, ask(response_format=schema))
    sent = openai_server.last.json["response_format"]
    assert sent["type"] == "json_schema" and sent["json_schema"]["schema"] == schema


async def test_stream_reassembles_text_and_tool_call_deltas(
    http_client: httpx.AsyncClient, openai_server: WireServer
) -> None:
    second = ToolCall("call_2", "get_weather", {"city": "Genève", "unit": "C"})
    openai_server.enqueue(
        openai_stream(
            "Checking ",
            "both.",
            tool_calls=[WEATHER_CALL, second],
            input_tokens=50,
            output_tokens=20,
            cached_tokens=10,
        )
    )
    events = await collect(provider(openai_server, http_client).stream(GPT, conversation()))

    body = openai_server.last.json
    assert body["stream"] is True and body["stream_options"] == {"include_usage": True}
    assert [e.text for e in events if isinstance(e, TextDelta)] == ["Checking ", "both."]
    deltas = [e for e in events if isinstance(e, ToolCallDelta)]
    assert len(deltas) > 4  # arguments really arrived in fragments
    assert {d.index for d in deltas} == {0, 1}
    done = events[-1]
    assert isinstance(done, StreamDone)
    response = done.response
    assert response.text == "Checking both."
    assert response.tool_calls == (WEATHER_CALL, second)
    assert response.usage == Usage(50, 20, 10)
    assert response.finish_reason == "tool_calls"


async def test_embed_in_batches_keeps_order(
    http_client: httpx.AsyncClient, openai_server: WireServer
) -> None:
    model = spec("openai", "text-embedding-3-small", embedding_dimensions=3)
    adapter = provider(openai_server, http_client, model)
    adapter.embedding_batch_size = 2
    # The server answers out of order; the adapter sorts by `index`.
    shuffled = openai_embeddings([[1, 0, 0], [0, 1, 0]], input_tokens=4)
    payload = json.loads(shuffled.body)
    payload["data"].reverse()
    openai_server.enqueue(Reply.json(payload), openai_embeddings([[0, 0, 1]], input_tokens=3))

    vectors, tokens = await adapter.embed(model, ["a", "b", "c"])

    assert vectors == [[1.0, 0.0, 0.0], [0.0, 1.0, 0.0], [0.0, 0.0, 1.0]]
    assert tokens == 7
    first, second = openai_server.received
    assert first.path == "/v1/embeddings"
    assert first.json == {"model": "text-embedding-3-small", "input": ["a", "b"], "dimensions": 3}
    assert second.json["input"] == ["c"]
    assert await adapter.embed(model, []) == ([], 0)


async def test_a_reply_with_fewer_embeddings_than_texts_is_a_retryable_bad_reply(
    http_client: httpx.AsyncClient, openai_server: WireServer
) -> None:
    model = spec("openai", "text-embedding-3-small")
    openai_server.enqueue(openai_embeddings([[1, 0, 0]], input_tokens=2))
    with pytest.raises(ProviderError) as raised:
        await provider(openai_server, http_client, model).embed(model, ["a", "b"])
    assert raised.value.kind == ErrorKind.bad_reply and raised.value.retryable
    assert "1 embeddings for 2 texts" in str(raised.value)
