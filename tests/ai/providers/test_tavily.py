"""Tavily web search as the web_search operation, against a local server."""

from __future__ import annotations

from datetime import date

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
)
from agentur.ai.model_kinds import stream_model
from agentur.ai.operation_types import OperationType
from agentur.ai.providers.base import ProviderError
from agentur.ai.providers.tavily import MAX_QUERY_CHARS, TavilyProvider, days_ago
from tests.ai.providers.helpers import ask, collect, spec
from tests.ai.wire_servers import WireServer, tavily_error, tavily_results

SEARCH = spec("tavily", "search")


def provider(server: WireServer, http_client: httpx.AsyncClient, **kwargs) -> TavilyProvider:
    return TavilyProvider(
        client=http_client,
        api_key="tvly-secret",
        base_url=server.base_url,
        models=[SEARCH],
        **kwargs,
    )


async def test_search_uses_last_user_message_and_formats_results(
    http_client: httpx.AsyncClient,
    tavily_server: WireServer,
) -> None:
    tavily_server.enqueue(
        tavily_results(
            [
                ("Bern weather", "https://w.example/bern", "12 °C and rain."),
                ("", "https://x.ch", ""),
            ],
            answer="It is raining in Bern.",
        )
    )
    request = ask("old question")
    request = type(request)(
        request.operation,
        (
            Message.system("sys"),
            Message.user("old"),
            Message.assistant("a"),
            Message.user("Bern weather today"),
        ),
    )
    response = await provider(tavily_server, http_client, max_results=3).search(SEARCH, request)

    received = tavily_server.last
    assert received.path == "/search"
    assert received.headers["authorization"] == "Bearer tvly-secret"
    assert received.json == {
        "query": "Bern weather today",
        "max_results": 3,
        "search_depth": "basic",
        "include_answer": True,
    }
    assert response.text == (
        "It is raining in Bern.\n\n[1] Bern weather\nhttps://w.example/bern\n12 °C and rain.\n\n"
        "[2] https://x.ch\nhttps://x.ch"
    )
    assert (response.model, response.finish_reason) == ("tavily:search", "stop")
    assert response.usage.input_tokens > 0 and response.usage.output_tokens > 0


async def test_long_query_is_cut_stream_and_errors(
    http_client: httpx.AsyncClient, tavily_server: WireServer
) -> None:
    tavily_server.enqueue(
        tavily_results([]), tavily_error(401, "Unauthorized: missing or invalid API key.")
    )
    adapter = provider(tavily_server, http_client)
    events = await collect(stream_model(adapter, SEARCH, ask("q" * 1000)))
    assert len(tavily_server.last.json["query"]) == MAX_QUERY_CHARS
    assert isinstance(events[0], TextDelta) and events[0].text == "No results."
    assert isinstance(events[-1], StreamDone)
    with pytest.raises(ProviderError, match="invalid API key") as error:
        await provider(tavily_server, http_client).search(SEARCH, ask())
    assert (error.value.status_code, error.value.retryable) == (401, False)
    with pytest.raises(ProviderError, match="no user message"):
        await provider(tavily_server, http_client).search(SEARCH, type(ask())(ask().operation, ()))


async def test_search_options_and_structured_sources(
    http_client: httpx.AsyncClient, tavily_server: WireServer
) -> None:
    tavily_server.enqueue(
        tavily_results(
            [
                ("Glacier report", "https://news.example/glacier", " Ice lost. ", "2026-11-20"),
                ("No date", "https://blog.example/post", "Text."),
            ]
        )
    )
    request = AiRequest(
        OperationType.web_search,
        (Message.user("glacier melt"),),
        options=CallOptions(search=SearchOptions(max_results=2, recency_days=30)),
    )
    response = await provider(tavily_server, http_client).search(SEARCH, request)

    sent = tavily_server.last.json
    assert sent["max_results"] == 2
    assert sent["start_date"] == days_ago(30).isoformat()
    assert response.sources == (
        Source("https://news.example/glacier", "Glacier report", "Ice lost.", "2026-11-20"),
        Source("https://blog.example/post", "No date", "Text.", None),
    )


def test_days_ago_counts_back_from_today() -> None:
    assert days_ago(30, date(2026, 3, 1)) == date(2026, 1, 30)
