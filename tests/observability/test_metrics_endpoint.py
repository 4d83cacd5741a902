"""/metrics: scraped after an agent run and a search, parsed with prometheus_client's parser;
and who may scrape it under each `metrics_auth` mode."""

from __future__ import annotations

import httpx
import pytest
from fastapi import FastAPI
from prometheus_client.openmetrics.parser import (
    text_string_to_metric_families as openmetrics_families,
)
from prometheus_client.parser import text_string_to_metric_families

from agentur.ai.providers.scripted import ScriptedProvider, ScriptedTurn
from agentur.ai.service import AiService
from agentur.ai.settings import AiSettings
from agentur.knowledge.store import KnowledgeStore, use_knowledge_store
from agentur.runtime import Runtime
from agentur.tools.registry import ToolRegistry
from agentur.tools.toolboxes import REQUEST_TOOLBOX
from tests.agent.support import call, chat_model, scripted
from tests.api.live_server import live_server
from tests.conftest import Tenants
from tests.connections.test_mcp_connection_run import TOKEN, add_connection, weather_server
from tests.egress.allowed_hosts import allow
from tests.knowledge.conftest import knowledge_settings, upload
from tests.knowledge.sample_files import MARKDOWN

Samples = dict[tuple[str, frozenset[tuple[str, str]]], float]


async def scrape(client: httpx.AsyncClient, **headers: str) -> Samples:
    response = await client.get("/metrics", headers=headers)
    assert response.status_code == 200, response.text
    assert response.headers["content-type"].startswith("text/plain; version=0.0.4")
    return {
        (sample.name, frozenset(sample.labels.items())): sample.value
        for family in text_string_to_metric_families(response.text)
        for sample in family.samples
    }


def moved(before: Samples, after: Samples, name: str, **labels: str) -> float:
    key = (name, frozenset(labels.items()))
    return after.get(key, 0.0) - before.get(key, 0.0)


async def test_counters_move_by_the_right_labels_after_an_agent_run_and_a_search(
    client: httpx.AsyncClient, runtime: Runtime, tenants: Tenants
) -> None:
    alice = await tenants.member()
    model = chat_model(name="metrics-model", input_price_usd_per_mtok=1.0)
    runtime.ai, _ = scripted(
        [ScriptedTurn.calls(call("list_files", "c1")), ScriptedTurn(text="nothing here")], model
    )
    before = await scrape(client)
    run = await client.post("/v1/agent/runs", headers=alice.headers, json={"prompt": "list"})
    assert run.status_code == 200 and run.json()["status"] == "completed", run.text
    search = await client.post(
        "/v1/knowledge/search", headers=alice.headers, json={"query": "install"}
    )
    assert search.status_code == 200, search.text
    after = await scrape(client)

    assert moved(before, after, "agentur_agent_runs_total", status="completed") == 1
    assert moved(before, after, "agentur_agent_rounds_total") == 2
    assert moved(before, after, "agentur_tool_calls_total", tool="list_files", outcome="ok") == 1
    # The GenAI conventions' metrics, in their Prometheus names and label names.
    gen_ai = {
        "gen_ai_operation_name": "chat",
        "gen_ai_provider_name": "scripted",
        "gen_ai_request_model": "metrics-model",
    }
    calls = moved(
        before, after, "gen_ai_client_operation_duration_seconds_count", **gen_ai, error_type=""
    )
    assert calls == 2
    input_tokens = moved(
        before, after, "gen_ai_client_token_usage_sum", **gen_ai, gen_ai_token_type="input"
    )
    assert input_tokens > 0
    output_calls = moved(
        before, after, "gen_ai_client_token_usage_count", **gen_ai, gen_ai_token_type="output"
    )
    assert output_calls == 2
    cost = {
        "gen_ai_provider_name": "scripted",
        "gen_ai_request_model": "metrics-model",
        "agentur_operation": "agent",
    }
    assert moved(before, after, "agentur_gateway_cost_chf_total", **cost) > 0
    assert moved(before, after, "agentur_knowledge_search_seconds_count") == 1
    # Route templates, never raw paths; the status is a label (http.server.request.duration).
    route = {
        "http_request_method": "POST",
        "http_route": "/v1/agent/runs",
        "http_response_status_code": "200",
    }
    assert moved(before, after, "http_server_request_duration_seconds_count", **route) == 1
    file_route = await client.get("/v1/files/no-such-file", headers=alice.headers)
    assert file_route.status_code == 404
    final = await scrape(client)
    templated = {
        "http_request_method": "GET",
        "http_route": "/v1/files/{file_id}",
        "http_response_status_code": "404",
    }
    assert moved(after, final, "http_server_request_duration_seconds_count", **templated) == 1
    assert not any("no-such-file" in str(labels) for _, labels in final)


def client_from(app: FastAPI, host: str) -> httpx.AsyncClient:
    transport = httpx.ASGITransport(app=app, client=(host, 40000))
    return httpx.AsyncClient(transport=transport, base_url="http://agentur.test")


async def test_default_answers_loopback_only_and_a_token_switches_to_bearer(
    runtime: Runtime, app: FastAPI
) -> None:
    async with client_from(app, "10.1.2.3") as remote, client_from(app, "127.0.0.1") as local:
        refused = await remote.get("/metrics")
        assert refused.status_code == 403
        assert "loopback" in refused.json()["detail"]
        assert (await local.get("/metrics")).status_code == 200
        runtime.settings.metrics_token = "scrape-secret"  # type: ignore[assignment]
        runtime.settings = runtime.settings.model_validate(runtime.settings.model_dump())
        assert (await local.get("/metrics")).status_code == 401
        wrong = await remote.get("/metrics", headers={"Authorization": "Bearer nope"})
        assert wrong.status_code == 401
        await scrape(remote, Authorization="Bearer scrape-secret")


async def test_api_key_mode_needs_a_platform_admin_and_none_is_open(
    runtime: Runtime, app: FastAPI, tenants: Tenants
) -> None:
    member, admin = await tenants.member(), await tenants.member(platform_admin=True)
    runtime.settings.metrics_auth = "api_key"
    async with client_from(app, "10.1.2.3") as remote:
        assert (await remote.get("/metrics")).status_code == 401
        assert (await remote.get("/metrics", headers=member.headers)).status_code == 403
        await scrape(remote, **admin.headers)
        runtime.settings.metrics_auth = "none"
        await scrape(remote)


async def test_indexing_and_search_metrics_follow_the_worker_and_the_search(
    client: httpx.AsyncClient, runtime: Runtime, tenants: Tenants
) -> None:
    await runtime.ai.aclose()
    runtime.ai = AiService(
        [ScriptedProvider()], settings=AiSettings()
    )  # its trigram embeddings: fast, offline
    store = KnowledgeStore(runtime, knowledge_settings())
    use_knowledge_store(runtime, store)
    alice = await tenants.member()
    before = await scrape(client)
    await upload(runtime, alice.context, "guide.md", MARKDOWN)
    outcomes = await store.worker.run_until_idle()
    assert [o.status for o in outcomes] == ["indexed"]
    search = await client.post(
        "/v1/knowledge/search", headers=alice.headers, json={"query": "install setup"}
    )
    assert search.status_code == 200 and search.json()["hits"], search.text
    after = await scrape(client)

    assert moved(before, after, "agentur_indexed_files_total", status="indexed") == 1
    assert moved(before, after, "agentur_indexed_chunks_total") == outcomes[0].chunks > 0
    assert after[("agentur_index_pending_files", frozenset())] == 0  # the last poll: idle
    assert moved(before, after, "agentur_knowledge_search_seconds_count") == 1
    embedding_tokens = [
        value - before.get((name, labels), 0.0)
        for (name, labels), value in after.items()
        if name == "gen_ai_client_token_usage_sum"
        and ("gen_ai_request_model", "scripted-embedding") in labels
        and ("gen_ai_operation_name", "embeddings") in labels
        and ("gen_ai_token_type", "input") in labels
    ]
    assert sum(embedding_tokens) > 0  # indexing and the query vector are billed calls


def changed(before: Samples, after: Samples) -> list[dict[str, str]]:
    """The label sets of the samples that moved between two scrapes."""
    return [dict(key[1]) for key, value in after.items() if before.get(key) != value]


async def test_label_values_come_from_a_fixed_set_and_no_connection_name_shows(
    client: httpx.AsyncClient,
    runtime: Runtime,
    tenants: Tenants,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    alice = await tenants.member()
    remote_calls: list[tuple[str, dict]] = []
    before = await scrape(client)
    async with live_server(weather_server(remote_calls)) as base_url:
        allow(monkeypatch, base_url)
        assert await add_connection(runtime, alice, f"{base_url}/mcp", TOKEN) is None
        runtime.ai, _ = scripted(
            [
                ScriptedTurn.calls(call("request_toolbox", "t", toolbox_id="mcp", reason="x")),
                ScriptedTurn.calls(call("Weather__forecast", "f", city="Bern")),
                ScriptedTurn(text="Sunny."),
            ]
        )
        run = await client.post(
            "/v1/agent/runs", headers=alice.headers, json={"prompt": "Weather in Bern?"}
        )
    assert run.status_code == 200 and run.json()["status"] == "completed", run.text
    after = await scrape(client)

    assert remote_calls == [("forecast", {"city": "Bern"})]
    assert moved(before, after, "agentur_tool_calls_total", tool="mcp", outcome="ok") == 1
    # Every label value that moved is one of a set fixed by the code and the configuration.
    tools = set(ToolRegistry.discover().names()) | {REQUEST_TOOLBOX, "mcp", "(not offered)"}
    routes = {"/metrics", "/v1/agent/runs"}  # the templates of this test's requests
    moved_labels = changed(before, after)
    assert moved_labels
    for labels in moved_labels:
        assert labels.get("tool", REQUEST_TOOLBOX) in tools, labels
        assert labels.get("http_route", "/metrics") in routes, labels
        assert not any("Weather" in value or "Bern" in value for value in labels.values())


async def test_openmetrics_is_served_when_the_scraper_asks_for_it(
    client: httpx.AsyncClient,
) -> None:
    accept = "application/openmetrics-text;version=1.0.0,text/plain;version=0.0.4;q=0.5"
    openmetrics = await client.get("/metrics", headers={"Accept": accept})
    plain = await client.get("/metrics")

    assert openmetrics.headers["content-type"].startswith("application/openmetrics-text")
    assert openmetrics.text.endswith("# EOF\n")
    families = {f.name: f for f in openmetrics_families(openmetrics.text)}
    assert families["http_server_request_duration_seconds"].type == "histogram"
    assert families["http_server_request_duration_seconds"].unit == "seconds"
    assert plain.headers["content-type"].startswith("text/plain; version=0.0.4")
    assert "# EOF" not in plain.text
