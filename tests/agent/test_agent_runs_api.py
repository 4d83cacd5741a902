"""/v1/agent/runs over real storage: SSE and JSON modes, trace retrieval, cancellation,
tenant isolation, and the end-to-end run against an OpenAI-compatible wire server."""

from __future__ import annotations

import json
from collections.abc import Iterator

import httpx
import pytest

from agentur.ai.messages import ToolCall
from agentur.ai.model_spec import Capability, ModelSpec
from agentur.ai.providers.openai_compatible import OpenAICompatibleProvider
from agentur.ai.providers.scripted import ScriptedTurn
from agentur.ai.service import AiService
from agentur.ai.settings import AiSettings
from agentur.runtime import Runtime
from tests.agent.support import call, scripted
from tests.ai.wire_servers import WireServer, openai_stream
from tests.conftest import Tenants

SSE = {"Accept": "text/event-stream"}


def parse_sse(body: str) -> list[tuple[str, dict]]:
    events = []
    for frame in body.strip().split("\n\n"):
        lines = dict(line.split(": ", 1) for line in frame.splitlines())
        events.append((lines["event"], json.loads(lines["data"])))
    return events


async def upload(client: httpx.AsyncClient, headers: dict, name: str, text: str) -> str:
    response = await client.post(
        "/v1/files", headers=headers, files={"file": (name, text.encode())}
    )
    assert response.status_code == 201, response.text
    return response.json()["id"]


@pytest.fixture
def openai_server() -> Iterator[WireServer]:
    with WireServer("openai", "/v1") as server:
        yield server


async def test_streams_events_from_an_openai_compatible_server_and_keeps_the_trace(
    client: httpx.AsyncClient, runtime: Runtime, tenants: Tenants, openai_server: WireServer
) -> None:
    alice = await tenants.member()
    file_id = await upload(client, alice.headers, "plan.txt", "Step 1: ship it.")
    model = ModelSpec(
        provider="openai_compatible",
        name="wire-model",
        capabilities=frozenset({Capability.tools, Capability.streaming}),
        input_price_usd_per_mtok=1.0,
        output_price_usd_per_mtok=2.0,
    )
    provider = OpenAICompatibleProvider(base_url=openai_server.base_url, models=[model])
    runtime.ai = AiService([provider], settings=AiSettings())
    openai_server.enqueue(
        openai_stream(tool_calls=[ToolCall("call_a", "list_files", {})]),
        openai_stream(tool_calls=[ToolCall("call_b", "read_file", {"file_id": file_id})]),
        openai_stream("The plan ", "says: ship it."),
    )
    try:
        response = await client.post(
            "/v1/agent/runs",
            headers={**alice.headers, **SSE, "X-User-Timezone": "Europe/Zurich"},
            json={"prompt": "What does my plan say?"},
        )
    finally:
        await provider.aclose() if hasattr(provider, "aclose") else None
    assert response.status_code == 200
    assert response.headers["content-type"].startswith("text/event-stream")
    events = parse_sse(response.text)
    names = [name for name, _ in events]
    assert names[0] == "run" and names[-2:] == ["final", "agent_summary"]
    for expected in ("tool_call", "tool_result", "chunk", "status"):
        assert expected in names
    results = [data for name, data in events if name == "tool_result"]
    assert [r["name"] for r in results] == ["list_files", "read_file"]
    assert json.loads(results[1]["content"])["content"] == "Step 1: ship it."
    chunks = "".join(data["text"] for name, data in events if name == "chunk")
    assert chunks == "The plan says: ship it."
    final = dict(events)["final"]
    assert final == {"status": "completed", "text": "The plan says: ship it."}
    summary = dict(events)["agent_summary"]
    assert summary["rounds"] == 3 and summary["cost_chf"] > 0
    # The model saw the tool results it asked for, in the wire format.
    third = openai_server.received[2].json["messages"]
    assert any(m["role"] == "tool" and "ship it" in m["content"] for m in third)
    # The clock line rides in the last message, after the cacheable prefix.
    assert "Europe/Zurich" in openai_server.received[0].json["messages"][-1]["content"]

    run_id = events[0][1]["run_id"]
    trace = await client.get(f"/v1/agent/runs/{run_id}", headers=alice.headers)
    assert trace.status_code == 200, trace.text
    body = trace.json()
    assert body["status"] == "completed" and body["rounds"] == 3
    assert body["models"] == ["openai_compatible:wire-model"]
    kinds = [e["kind"] for e in body["entries"]]
    assert kinds.count("model_call") == 3 and kinds.count("tool_call") == 2
    model_call = next(e for e in body["entries"] if e["kind"] == "model_call")
    assert model_call["data"]["input_tokens"] == 10 and model_call["data"]["cost_chf"] > 0
    tool_call = next(e for e in body["entries"] if e["kind"] == "tool_call")
    assert tool_call["data"]["name"] == "list_files" and tool_call["duration_ms"] is not None


async def test_json_mode_workflow_history_isolation_and_cancel_of_finished_run(
    client: httpx.AsyncClient, runtime: Runtime, tenants: Tenants
) -> None:
    alice = await tenants.member("acme")
    eve = await tenants.member("other")
    runtime.ai, provider = scripted(
        [
            ScriptedTurn(text="first answer"),
            ScriptedTurn.calls(
                call("write_file", "w", name="a.txt", content="token=sk-abcdefghijklmnopqrstu")
            ),
            ScriptedTurn(text="second answer"),
        ]
    )
    first = await client.post("/v1/agent/runs", headers=alice.headers, json={"prompt": "hello"})
    assert first.status_code == 200, first.text
    body = first.json()
    assert body["status"] == "completed" and body["final_text"] == "first answer"
    assert set(body) == {
        "run_id",
        "workflow_id",
        "status",
        "final_text",
        "rounds",
        "cost_chf",
        "usage",
    }
    second = await client.post(
        "/v1/agent/runs",
        headers=alice.headers,
        json={"prompt": "again", "workflow_id": body["workflow_id"], "config": {"max_rounds": 5}},
    )
    assert second.json()["final_text"] == "second answer"
    # The second run saw the first exchange of its workflow.
    contents = [m.content for m in provider.received[1].messages]
    assert contents[1:4] == ["hello", "first answer", "again"]
    # Secrets in tool arguments are not stored in the trace.
    trace = (
        await client.get(f"/v1/agent/runs/{second.json()['run_id']}", headers=alice.headers)
    ).json()
    assert "sk-abcdefghijklmnopqrstu" not in json.dumps(trace)

    for path in (f"/v1/agent/runs/{body['run_id']}",):
        assert (await client.get(path, headers=eve.headers)).status_code == 404
        assert (await client.delete(path, headers=eve.headers)).status_code == 404
    assert (
        await client.delete(f"/v1/agent/runs/{body['run_id']}", headers=alice.headers)
    ).status_code == 409
    other_workflow = await client.post(
        "/v1/agent/runs",
        headers=eve.headers,
        json={"prompt": "x", "workflow_id": body["workflow_id"]},
    )
    assert other_workflow.status_code == 404
    bad = await client.post(
        "/v1/agent/runs", headers=alice.headers, json={"prompt": "x", "config": {"max_rounds": 0}}
    )
    assert bad.status_code == 422 and "max_rounds" in bad.json()["detail"]
