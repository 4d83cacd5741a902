"""Vendors on the OpenAI wire format: OpenAI-compatible local servers, Mistral, Perplexity."""

from __future__ import annotations

import httpx
import pytest

from agentur.ai.messages import (
    AiRequest,
    CallOptions,
    Message,
    SearchOptions,
    Source,
    StreamDone,
    TextDelta,
    Usage,
)
from agentur.ai.model_kinds import embed_model
from agentur.ai.operation_types import OperationType
from agentur.ai.providers.base import ProviderError
from agentur.ai.providers.mistral import MistralProvider, mistral_tool_call_id
from agentur.ai.providers.openai_compatible import OpenAICompatibleProvider
from agentur.ai.providers.perplexity import PerplexityProvider
from agentur.ai.providers.tavily import days_ago
from tests.ai.providers.helpers import ask, collect, conversation, spec
from tests.ai.wire_servers import (
    WireServer,
    openai_embeddings,
    openai_message,
    openai_stream,
    openai_text,
)


async def test_openai_compatible_without_key_sends_no_auth_and_no_strict(
    http_client: httpx.AsyncClient,
    openai_server: WireServer,
) -> None:
    model = spec("openai_compatible", "llama3.2")
    adapter = OpenAICompatibleProvider(
        client=http_client, base_url=openai_server.base_url, models=[model]
    )
    openai_server.enqueue(openai_text("hi"), openai_embeddings([[0.5, 0.5]]))

    response = await adapter.complete(model, conversation(temperature=0.3, max_output_tokens=9))
    body = openai_server.last.json
    assert "authorization" not in openai_server.last.headers
    assert all("strict" not in tool["function"] for tool in body["tools"])
    assert (body["temperature"], body["max_tokens"]) == (0.3, 9)
    assert (response.model, response.provider) == (
        "openai_compatible:llama3.2",
        "openai_compatible",
    )
    assert (await adapter.embed(model, ["x"]))[0] == [[0.5, 0.5]]
    assert adapter.models() == [model]


def test_openai_compatible_requires_a_base_url() -> None:
    with pytest.raises(ValueError, match="base URL"):
        OpenAICompatibleProvider(models=[])


async def test_mistral_maps_foreign_tool_call_ids_and_names_tool_results(
    http_client: httpx.AsyncClient,
    mistral_server: WireServer,
) -> None:
    model = spec("mistral", "mistral-large-latest")
    adapter = MistralProvider(
        client=http_client, api_key="mk", base_url=mistral_server.base_url, models=[model]
    )
    mistral_server.enqueue(openai_text("ok"))
    await adapter.complete(model, conversation())

    received = mistral_server.last
    assert received.path == "/v1/chat/completions"
    assert received.headers["authorization"] == "Bearer mk"
    messages = received.json["messages"]
    mapped = messages[2]["tool_calls"][0]["id"]
    assert mapped == mistral_tool_call_id("call_abc-123")
    assert len(mapped) == 9 and mapped.isalnum()
    assert messages[3] == {
        "role": "tool",
        "tool_call_id": mapped,
        "content": "12 °C, rain",
        "name": "get_weather",
    }
    assert mistral_tool_call_id("Ab3dE6gH9") == "Ab3dE6gH9"


async def test_mistral_stream_takes_usage_from_the_finish_chunk(
    http_client: httpx.AsyncClient,
    mistral_server: WireServer,
) -> None:
    model = spec("mistral", "mistral-small-latest")
    adapter = MistralProvider(
        client=http_client, api_key="mk", base_url=mistral_server.base_url, models=[model]
    )
    mistral_server.enqueue(openai_stream("Bon", "jour", usage_chunk=False, input_tokens=8))
    events = await collect(adapter.stream(model, ask()))
    assert "stream_options" not in mistral_server.last.json
    done = events[-1]
    assert isinstance(done, StreamDone)
    assert done.response.text == "Bonjour"
    assert done.response.usage == Usage(8, 5, 0)


async def test_perplexity_merges_roles_appends_sources_and_refuses_tools(
    http_client: httpx.AsyncClient,
    perplexity_server: WireServer,
) -> None:
    model = spec("perplexity", "sonar")
    adapter = PerplexityProvider(
        client=http_client, api_key="pk", base_url=perplexity_server.base_url, models=[model]
    )
    sources = {
        "search_results": [
            {"title": "Swiss weather", "url": "https://meteo.example/bern"},
            {"title": "", "url": "https://example.org/x"},
        ]
    }
    perplexity_server.enqueue(
        openai_message("It rains [1].", extra=sources),
        openai_stream("Rain."),
    )
    request = ask("Weather in Bern?")
    request = type(request)(
        operation=request.operation,
        messages=(request.messages[0], request.messages[0]),
    )
    response = await adapter.complete(model, request)
    assert perplexity_server.last.path == "/chat/completions"
    assert perplexity_server.last.json["messages"] == [
        {"role": "user", "content": "Weather in Bern?\n\nWeather in Bern?"}
    ]
    assert response.text == (
        "It rains [1].\n\nSources:\n[1] Swiss weather — https://meteo.example/bern\n"
        "[2] https://example.org/x — https://example.org/x"
    )
    with pytest.raises(ProviderError, match="does not support tools") as refused:
        await adapter.complete(model, conversation())
    assert refused.value.retryable is False
    with pytest.raises(ProviderError, match="embedding is not supported"):
        await embed_model(adapter, model, ["x"])  # Perplexity offers no embedding kind
    # A stream without sources adds nothing.
    events = await collect(adapter.stream(model, ask()))
    assert [e.text for e in events if isinstance(e, TextDelta)] == ["Rain."]


async def test_adapter_without_injected_client_owns_and_closes_one(
    openai_server: WireServer,
) -> None:
    model = spec("openai_compatible", "qwen3")
    adapter = OpenAICompatibleProvider(base_url=openai_server.base_url, models=[model])
    openai_server.enqueue(openai_text("one"), openai_text("two"))
    assert (await adapter.complete(model, ask())).text == "one"
    client = adapter.transport.client
    assert (await adapter.complete(model, ask())).text == "two"
    assert adapter.transport.client is client  # one pool, reused
    await adapter.aclose()
    assert client.is_closed


async def test_perplexity_sends_the_recency_filter_and_reports_structured_sources(
    http_client: httpx.AsyncClient, perplexity_server: WireServer
) -> None:
    model = spec("perplexity", "sonar")
    adapter = PerplexityProvider(
        client=http_client, api_key="pk", base_url=perplexity_server.base_url, models=[model]
    )
    results = {
        "search_results": [
            {
                "title": "Glacier report",
                "url": "https://news.example/glacier",
                "date": "2026-11-20",
                "snippet": "Ice lost. ",
            }
        ]
    }
    perplexity_server.enqueue(
        openai_message("Glaciers shrink [1].", extra=results),
        openai_message("No sources.", extra={"citations": ["https://a.example/x"]}),
    )
    search = AiRequest(
        OperationType.web_search,
        (Message.user("glacier melt"),),
        options=CallOptions(search=SearchOptions(recency_days=7)),
    )
    response = await adapter.complete(model, search)
    after = days_ago(7)
    assert perplexity_server.last.json["search_after_date_filter"] == (
        f"{after.month}/{after.day}/{after.year}"
    )
    assert response.sources == (
        Source("https://news.example/glacier", "Glacier report", "Ice lost.", "2026-11-20"),
    )
    plain = await adapter.complete(model, ask("x"))
    assert "search_after_date_filter" not in perplexity_server.last.json
    assert plain.sources == (Source("https://a.example/x"),)
