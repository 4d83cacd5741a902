"""The seed's "research this on the internet" run: POST /v1/agent/runs with
initial_toolboxes ["core", "web"]; a scripted model searches (Tavily wire server), reads the
found page (loopback web server, allow-listed) and answers; events and trace show both calls."""

from __future__ import annotations

import json
from collections.abc import Iterator

import httpx
import pytest

from agentur.ai.providers.scripted import ScriptedProvider, ScriptedTurn
from agentur.ai.providers.tavily import TavilyProvider
from agentur.ai.service import AiService
from agentur.runtime import Runtime
from tests.agent.support import chat_model
from tests.agent.test_agent_runs_api import SSE, parse_sse
from tests.ai.wire_servers import WireServer, tavily_results
from tests.conftest import Tenants
from tests.egress.allowed_hosts import reread
from tests.tools.test_web_search import SEARCH_MODEL
from tests.tools.web_pages import ARTICLE, response, site


@pytest.fixture
def tavily_server() -> Iterator[WireServer]:
    with WireServer("tavily") as server:
        yield server


async def test_a_run_with_the_web_toolbox_searches_reads_and_answers(
    client: httpx.AsyncClient,
    runtime: Runtime,
    tenants: Tenants,
    tavily_server: WireServer,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    alice = await tenants.member()
    web = await site({"/alps": response(ARTICLE)})
    page_url = f"http://127.0.0.1:{web.port}/alps"
    monkeypatch.setenv("AGENTUR_EGRESS_ALLOWED_HOSTS", f"127.0.0.1:{web.port}")
    reread(monkeypatch)
    tavily_server.enqueue(tavily_results([("Hiking in the Swiss Alps", page_url, "Trails.")]))
    model = ScriptedProvider(
        [
            ScriptedTurn.call("web_search", "s1", query="best season for alpine hiking"),
            ScriptedTurn.call("read_url", "r1", url=page_url),
            ScriptedTurn(text="June to September, when the passes are free of snow."),
        ],
        model_specs=[chat_model()],
    )
    search = TavilyProvider(
        api_key="tvly-k", base_url=tavily_server.base_url, models=[SEARCH_MODEL]
    )
    runtime.ai = AiService([model, search], settings=runtime.ai.settings, store=runtime.ai.store)
    try:
        reply = await client.post(
            "/v1/agent/runs",
            headers={**alice.headers, **SSE},
            json={
                "prompt": "Research on the internet when to hike in the Alps.",
                "config": {"max_rounds": 5, "initial_toolboxes": ["core", "web"]},
            },
        )
    finally:
        await web.stop()
    assert reply.status_code == 200, reply.text
    events = parse_sse(reply.text)
    calls = [data["name"] for name, data in events if name == "tool_call"]
    results = {data["name"]: data for name, data in events if name == "tool_result"}
    assert calls == ["web_search", "read_url"]
    assert not results["web_search"]["is_error"] and not results["read_url"]["is_error"]
    assert json.loads(results["web_search"]["content"])["results"][0]["url"] == page_url
    page = json.loads(results["read_url"]["content"])
    assert page["url"] == page_url and "## Best season" in page["content"]
    assert "ADVERTISEMENT" not in page["content"]
    assert dict(events)["final"]["text"].startswith("June to September")
    offered = {tool.name for tool in model.received[0].tools}
    assert {"web_search", "read_url", "list_files"} <= offered
    assert tavily_server.last.json["query"] == "best season for alpine hiking"

    run_id = events[0][1]["run_id"]
    trace = (await client.get(f"/v1/agent/runs/{run_id}", headers=alice.headers)).json()
    traced = [e["data"]["name"] for e in trace["entries"] if e["kind"] == "tool_call"]
    assert traced == ["web_search", "read_url"]
    assert trace["status"] == "completed"
