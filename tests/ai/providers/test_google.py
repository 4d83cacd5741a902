"""Gemini adapter against a real local HTTP server in Google's wire format."""

from __future__ import annotations

import json

import httpx
import pytest

from agentur.ai.messages import Message, StreamDone, TextDelta, ToolCall, ToolCallDelta, Usage
from agentur.ai.providers.base import ErrorKind, ProviderError
from agentur.ai.providers.google import SKIP_THOUGHT_SIGNATURE, GoogleProvider
from tests.ai.providers.helpers import WEATHER_CALL, ask, collect, conversation, spec
from tests.ai.wire_servers import (
    Reply,
    WireServer,
    google_function_calls,
    google_stream,
    google_text,
)

GEMINI = spec("google", "gemini-2.5-flash")


def provider(server: WireServer, http_client: httpx.AsyncClient, *models) -> GoogleProvider:
    return GoogleProvider(
        client=http_client,
        api_key="AIza-test",
        base_url=server.base_url,
        models=list(models) or [GEMINI],
    )


async def test_complete_maps_contents_tools_and_config(
    http_client: httpx.AsyncClient, google_server: WireServer
) -> None:
    schema = {"type": "object", "properties": {"x": {"type": "string"}}}
    google_server.enqueue(
        google_text(
            "Cloudy.", input_tokens=90, output_tokens=6, cached_tokens=40, thoughts_tokens=20
        )
    )
    response = await provider(google_server, http_client).complete(
        GEMINI, conversation(temperature=0.1, max_output_tokens=256, response_format=schema)
    )

    received = google_server.last
    assert received.path == "/v1beta/models/gemini-2.5-flash:generateContent"
    assert received.headers["x-goog-api-key"] == "AIza-test"
    assert "key" not in received.query  # the key never goes into the URL
    body = received.json
    assert body["systemInstruction"] == {"parts": [{"text": "You are terse."}]}
    assert body["contents"] == [
        {"role": "user", "parts": [{"text": "Weather in Bern?"}]},
        {
            "role": "model",
            "parts": [
                {"text": "Let me check."},
                {"functionCall": {"name": "get_weather", "args": {"city": "Bern"}}},
            ],
        },
        {
            "role": "user",
            "parts": [
                {
                    "functionResponse": {
                        "name": "get_weather",
                        "response": {"result": "12 °C, rain"},
                    }
                },
                {"text": "And tomorrow?"},
            ],
        },
    ]
    declaration = body["tools"][0]["functionDeclarations"][0]
    assert declaration["name"] == "get_weather"
    assert declaration["parametersJsonSchema"]["required"] == ["city"]
    assert body["generationConfig"] == {
        "temperature": 0.1,
        "maxOutputTokens": 256,
        "responseMimeType": "application/json",
        "responseJsonSchema": schema,
    }
    assert response.text == "Cloudy."
    assert response.usage == Usage(input_tokens=90, output_tokens=26, cached_tokens=40)
    assert (response.model, response.finish_reason) == ("google:gemini-2.5-flash", "stop")


async def test_function_calls_get_ids_and_signatures_round_trip(
    http_client: httpx.AsyncClient, google_server: WireServer
) -> None:
    gemini3 = spec("google", "gemini-3-pro-preview")
    adapter = provider(google_server, http_client, gemini3)
    google_server.enqueue(
        google_function_calls(
            ToolCall("", "get_weather", {"city": "Basel"}),
            ToolCall("", "get_weather", {"city": "Lugano"}),
            thought_signature="c2lnbmF0dXJl",
        ),
        google_text("ok"),
        google_text("ok"),
        google_text("blocked", finish_reason="SAFETY"),
    )
    called = await adapter.complete(gemini3, ask())
    assert [c.arguments["city"] for c in called.tool_calls] == ["Basel", "Lugano"]
    assert len({c.id for c in called.tool_calls}) == 2 and all(c.id for c in called.tool_calls)
    assert called.finish_reason == "tool_calls"

    # Sending the calls back: the signature we saw goes with its call.
    request = conversation()
    follow_up = type(request)(
        request.operation,
        (
            Message.user("Weather?"),
            Message.assistant("", called.tool_calls),
            *(Message.tool_result(call, "sunny") for call in called.tool_calls),
        ),
    )
    await adapter.complete(gemini3, follow_up)
    model_turn = google_server.last.json["contents"][1]
    assert model_turn["parts"][0]["thoughtSignature"] == "c2lnbmF0dXJl"
    answers = google_server.last.json["contents"][2]["parts"]
    assert [a["functionResponse"]["name"] for a in answers] == ["get_weather", "get_weather"]

    # A call this adapter never saw (e.g. after a fallback) gets the documented skip value.
    foreign = type(request)(
        request.operation,
        (
            Message.user("Weather?"),
            Message.assistant("", (WEATHER_CALL,)),
            Message.tool_result(WEATHER_CALL, "x"),
        ),
    )
    await adapter.complete(gemini3, foreign)
    part = google_server.last.json["contents"][1]["parts"][0]
    assert part["thoughtSignature"] == SKIP_THOUGHT_SIGNATURE
    assert (await adapter.complete(gemini3, ask())).finish_reason == "content_filter"


async def test_stream_text_and_function_calls(
    http_client: httpx.AsyncClient, google_server: WireServer
) -> None:
    google_server.enqueue(
        google_stream(
            "Grüezi ",
            "mitenand.",
            function_calls=[ToolCall("", "get_weather", {"city": "Bern"})],
            input_tokens=30,
            output_tokens=9,
        )
    )
    events = await collect(provider(google_server, http_client).stream(GEMINI, conversation()))
    received = google_server.last
    assert received.path == "/v1beta/models/gemini-2.5-flash:streamGenerateContent"
    assert received.query == {"alt": "sse"}
    assert [e.text for e in events if isinstance(e, TextDelta)] == ["Grüezi ", "mitenand."]
    (delta,) = [e for e in events if isinstance(e, ToolCallDelta)]
    assert (delta.index, delta.name, json.loads(delta.arguments_delta)) == (
        0,
        "get_weather",
        {"city": "Bern"},
    )
    done = events[-1]
    assert isinstance(done, StreamDone)
    assert done.response.text == "Grüezi mitenand."
    assert done.response.tool_calls[0].id == delta.id
    assert done.response.usage == Usage(30, 9, 0)
    assert done.response.finish_reason == "tool_calls"


async def test_embed_batches(http_client: httpx.AsyncClient, google_server: WireServer) -> None:
    model = spec("google", "gemini-embedding-001")
    google_server.enqueue(Reply.json({"embeddings": [{"values": [1, 2]}, {"values": [3, 4]}]}))
    vectors, tokens = await provider(google_server, http_client, model).embed(
        model, ["abcd", "efgh"]
    )
    assert vectors == [[1.0, 2.0], [3.0, 4.0]] and tokens == 2
    received = google_server.last
    assert received.path == "/v1beta/models/gemini-embedding-001:batchEmbedContents"
    assert received.json["requests"][1] == {
        "model": "models/gemini-embedding-001",
        "content": {"parts": [{"text": "efgh"}]},
    }


async def test_a_reply_with_fewer_embeddings_than_texts_is_a_retryable_bad_reply(
    http_client: httpx.AsyncClient, google_server: WireServer
) -> None:
    model = spec("google", "gemini-embedding-001")
    google_server.enqueue(Reply.json({"embeddings": [{"values": [1, 2]}]}))
    with pytest.raises(ProviderError) as raised:
        await provider(google_server, http_client, model).embed(model, ["abcd", "efgh"])
    assert raised.value.kind == ErrorKind.bad_reply and raised.value.retryable
    assert "1 embeddings for 2 texts" in str(raised.value)
