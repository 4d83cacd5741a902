"""/metrics: scraped after an agent run and a search, parsed with prometheus_client's parser;
and who may scrape it under each `metrics_auth` mode."""

from __future__ import annotations

import httpx
from fastapi import FastAPI
from prometheus_client.parser import text_string_to_metric_families

from agentur.ai.providers.scripted import ScriptedProvider, ScriptedTurn
from agentur.ai.service import AiService
from agentur.knowledge.store import KnowledgeStore, use_knowledge_store
from agentur.runtime import Runtime
from tests.agent.support import call, chat_model, scripted
from tests.conftest import Tenants
from tests.knowledge.conftest import knowledge_settings, upload
from tests.knowledge.sample_files import MARKDOWN

Samples = dict[tuple[str, frozenset[tuple[str, str]]], float]


async def scrape(client: httpx.AsyncClient, **headers: str) -> Samples:
    response = await client.get("/metrics", headers=headers)
    assert response.status_code == 200, response.text
    assert response.headers["content-type"].startswith("text/plain")
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
    gateway = {"provider": "scripted", "model": "metrics-model", "operation": "agent"}
    assert moved(before, after, "agentur_gateway_calls_total", **gateway, outcome="ok") == 2
    input_tokens = moved(
        before, after, "agentur_gateway_tokens_total", **gateway, direction="input"
    )
    assert input_tokens > 0
    assert moved(before, after, "agentur_gateway_cost_chf_total", **gateway) > 0
    assert moved(before, after, "agentur_knowledge_search_seconds_count") == 1
    # Route templates, never raw paths; the status is a label.
    route = {"method": "POST", "route": "/v1/agent/runs", "status": "200"}
    assert moved(before, after, "agentur_http_requests_total", **route) == 1
    timing = {"method": "POST", "route": "/v1/knowledge/search"}
    assert moved(before, after, "agentur_http_request_seconds_count", **timing) == 1
    file_route = await client.get("/v1/files/no-such-file", headers=alice.headers)
    assert file_route.status_code == 404
    final = await scrape(client)
    templated = {"method": "GET", "route": "/v1/files/{file_id}", "status": "404"}
    assert moved(after, final, "agentur_http_requests_total", **templated) == 1
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
    runtime.ai = AiService([ScriptedProvider()])  # its trigram embeddings: fast, offline
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
        if name == "agentur_gateway_tokens_total"
        and ("model", "scripted-embedding") in labels
        and ("direction", "input") in labels
    ]
    assert sum(embedding_tokens) > 0  # indexing and the query vector are billed calls
