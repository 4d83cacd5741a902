"""web_search through the gateway's web_search operation against a Tavily wire server: results
with title, URL, snippet and date; the query neutralized on the wire; the call billed."""

from __future__ import annotations

import json
from collections.abc import Iterator
from dataclasses import replace

import pytest
from sqlalchemy import select

from agentur.ai.messages import AiResponse, Source, ToolCall, Usage
from agentur.ai.model_spec import Capability, ModelSpec
from agentur.ai.neutralization.gate import reidentify_response
from agentur.ai.neutralization.placeholder_map import PlaceholderMap
from agentur.ai.providers.scripted import ScriptedProvider
from agentur.ai.providers.tavily import TavilyProvider
from agentur.ai.service import AiService
from agentur.ai.settings import AiSettings
from agentur.runtime import Runtime
from agentur.storage.models.ai import AiLedgerEntry
from agentur.tools.run_tool import ToolLimits, run_tool
from agentur.tools.tool import ToolContext
from agentur.tools.web_search import TOOLS
from tests.agent.support import chat_model
from tests.ai.wire_servers import WireServer, tavily_results

# No price here: the registry prices Tavily's searches per request, as in production.
SEARCH_MODEL = ModelSpec(
    provider="tavily", name="search", capabilities=frozenset({Capability.web_search})
)


@pytest.fixture
def tavily_server() -> Iterator[WireServer]:
    with WireServer("tavily") as server:
        yield server


def tavily_gateway(runtime: Runtime, server: WireServer) -> AiService:
    provider = TavilyProvider(api_key="tvly-k", base_url=server.base_url, models=[SEARCH_MODEL])
    return AiService([provider], settings=runtime.ai.settings, store=runtime.ai.store)


async def search(context: ToolContext, **arguments: object) -> tuple[bool, str]:
    outcome = await run_tool(
        TOOLS[0],
        ToolCall("s1", "web_search", dict(arguments)),
        context,
        ToolLimits(),
        lambda _: None,
    )
    return outcome.is_error, outcome.content


async def test_results_come_back_structured_neutralized_and_billed(
    runtime: Runtime, tenants, tavily_server: WireServer
) -> None:
    alice = await tenants.member("acme")
    runtime.ai = tavily_gateway(runtime, tavily_server)
    tavily_server.enqueue(
        tavily_results(
            [
                ("Glacier report", "https://news.example/glacier", "Ice lost.", "2026-11-20"),
                ("Older page", "https://blog.example/post", "Text."),
                ("Third", "https://third.example/", "More."),
            ],
            answer="They shrink.",
        )
    )
    context = ToolContext(
        request=replace(alice.context, require_neutralization=True), runtime=runtime
    )
    failed, content = await search(
        context, query="glacier news from anna.muster@example.ch", max_results=2, recency_days=30
    )
    assert not failed, content
    found = json.loads(content)
    assert found["results"] == [
        {
            "title": "Glacier report",
            "url": "https://news.example/glacier",
            "snippet": "Ice lost.",
            "published": "2026-11-20",
        },
        {
            "title": "Older page",
            "url": "https://blog.example/post",
            "snippet": "Text.",
            "published": None,
        },
    ]
    assert found["engine"] == "tavily:search"
    sent = tavily_server.last.json
    assert "anna.muster@example.ch" not in sent["query"] and sent["query"].startswith("glacier")
    assert sent["max_results"] == 2 and "start_date" in sent
    async with runtime.database.session() as session:
        ledger = (await session.execute(select(AiLedgerEntry))).scalars().all()
    assert [(row.operation, row.model, row.mandate_id) for row in ledger] == [
        ("web_search", "tavily:search", alice.mandate_id)
    ]


async def test_without_a_search_provider_the_error_names_the_settings(
    runtime: Runtime, tenants
) -> None:
    alice = await tenants.member("acme")
    runtime.ai = AiService(
        [ScriptedProvider([], model_specs=[chat_model()])], settings=AiSettings()
    )  # no search
    failed, content = await search(
        ToolContext(request=alice.context, runtime=runtime), query="anything"
    )
    assert failed
    assert "AGENTUR_TAVILY_API_KEY" in content and "AGENTUR_PERPLEXITY_API_KEY" in content


def test_source_titles_and_snippets_are_reidentified() -> None:
    mapping = PlaceholderMap()
    placeholder = mapping.placeholder_for("EMAIL", "anna@example.ch")
    response = AiResponse(
        text=f"about {placeholder}",
        tool_calls=(),
        usage=Usage(),
        cost_chf=0.0,
        model="tavily:search",
        provider="tavily",
        latency_ms=1.0,
        finish_reason="stop",
        sources=(Source("https://x.example/", f"Mail {placeholder}", f"wrote {placeholder}"),),
    )
    restored = reidentify_response(response, mapping)
    assert restored.sources[0].title == "Mail anna@example.ch"
    assert restored.sources[0].snippet == "wrote anna@example.ch"
    assert restored.sources[0].url == "https://x.example/"
