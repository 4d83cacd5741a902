"""A meeting from start to end over the API, in German and English, with a scripted model:
silence on small talk, one call for a direct question, escalation to a real agent run with the
meeting configuration, its answer delivered as a reply, and the summary on ending."""

from __future__ import annotations

import httpx
import pytest
from fastapi import FastAPI

from agentur.ai.operation_types import OperationType
from agentur.runtime import Runtime
from agentur.tools.registry import ToolRegistry
from tests.conftest import Tenants
from tests.meetings.support import (
    AGENT_ANSWER,
    ANSWER,
    events,
    meeting_model,
    of,
    parse_sse,
    say,
    settled,
    start,
    transcript_lines,
)


@pytest.mark.parametrize("language", ["de", "en"])
async def test_a_meeting_listens_answers_escalates_and_ends_with_a_summary(
    client: httpx.AsyncClient, app: FastAPI, runtime: Runtime, tenants: Tenants, language: str
) -> None:
    runtime.ai, model = meeting_model()
    alice = await tenants.member()
    meeting = await start(
        client, alice.headers, title="Stand-up", languages=[language], wake_name="Agentur"
    )
    session_id = meeting["id"]
    assert meeting["status"] == "live" and meeting["workflow_id"]
    small_talk_1, small_talk_2, question, research = transcript_lines(language)

    # Small talk: the fast path looks, the assistant stays silent.
    await say(client, alice.headers, session_id, small_talk_1, small_talk_2)
    await settled(app, session_id)
    assert len(of(model, OperationType.meeting_reply)) == 1
    assert [name for name, _ in events(app, session_id) if name == "reply"] == []

    # A direct question: answered in one call, from the recent window plus what was just said.
    await say(client, alice.headers, session_id, question)
    await settled(app, session_id)
    calls = of(model, OperationType.meeting_reply)
    assert len(calls) == 2
    prompt = calls[-1].messages[-1].content
    assert small_talk_1["text"] in prompt.split("JUST SAID:")[0]  # the window
    assert question["text"] in prompt.split("JUST SAID:")[1]
    assert "Agentur" in calls[-1].messages[0].content  # the wake name
    assert calls[-1].workflow_id == meeting["workflow_id"]  # billed to the meeting
    replies = [data for name, data in events(app, session_id) if name == "reply"]
    assert [(r["text"], r["source"]) for r in replies] == [(ANSWER[language], "fast_path")]
    assert of(model, OperationType.agent) == []

    # "recherchier das im Internet": a holding answer, then a real agent run.
    await say(client, alice.headers, session_id, research)
    await settled(app, session_id)
    assert len(of(model, OperationType.meeting_reply)) == 3
    names = [name for name, _ in events(app, session_id)]
    assert names.count("agent_started") == 1 and names.count("agent_final") == 1
    started = next(data for name, data in events(app, session_id) if name == "agent_started")
    assert started["source"] == "fast_path" and "Python" in started["brief"]
    final = next(data for name, data in events(app, session_id) if name == "agent_final")
    assert final["status"] == "completed" and final["text"] == AGENT_ANSWER[language]
    replies = [data for name, data in events(app, session_id) if name == "reply"]
    assert replies[-1]["text"] == AGENT_ANSWER[language]
    assert replies[-1]["source"] == "agent" and replies[-1]["run_id"] == final["run_id"]

    # The run's trace: the meeting configuration, core + web tools, no action tools.
    trace = (await client.get(f"/v1/agent/runs/{final['run_id']}", headers=alice.headers)).json()
    assert trace["workflow_id"] == meeting["workflow_id"]
    assert trace["prompt"] == started["brief"]
    config = trace["config"]
    assert config["max_rounds"] == 5 and config["max_cost_chf"] == pytest.approx(0.10)
    assert config["tool_set"] == "core" and config["initial_toolboxes"] == ["core", "web"]
    assert config["exclude_action_tools"] is True
    assert 1 <= trace["rounds"] <= 5
    offered = {
        name
        for entry in trace["entries"]
        if entry["kind"] == "model_call"
        for name in entry["data"]["tools_offered"]
    }
    assert {"web_search", "read_url", "list_files"} <= offered
    actions = {tool.name for tool in ToolRegistry.discover().all() if tool.is_action}
    assert not offered & actions

    # No speech model: text only, said once in the stream.
    errors = [data for name, data in events(app, session_id) if name == "error"]
    assert [e["code"] for e in errors] == ["text_only"]

    # Ending writes the summary to the meeting's workflow; the stream ends with it.
    ended = await client.delete(f"/v1/meetings/{session_id}", headers=alice.headers)
    assert ended.status_code == 200, ended.text
    summary = ended.json()["summary"]
    assert ended.json()["status"] == "ended" and summary
    assert len(of(model, OperationType.data_analyse)) == 1
    assert ANSWER[language] in of(model, OperationType.data_analyse)[0].messages[-1].content
    messages = await client.get(
        f"/v1/workflows/{meeting['workflow_id']}/messages", headers=alice.headers
    )
    items = messages.json()["items"]
    assert items[-1]["role"] == "assistant" and items[-1]["content"] == summary
    assert items[-1]["data"] == {"meeting_summary": True}
    assert any(m["role"] == "transcript" and question["text"] in m["content"] for m in items)
    stream = await client.get(f"/v1/meetings/{session_id}/events", headers=alice.headers)
    assert stream.headers["content-type"].startswith("text/event-stream")
    streamed = parse_sse(stream.text)
    assert streamed[-1] == ("ended", {"summary": summary})
    assert [n for n, _ in streamed].count("reply") == 3
    assert ended.json()["spent_chf"] >= 0
    again = await client.post(
        f"/v1/meetings/{session_id}/transcript",
        headers=alice.headers,
        json={"utterances": [small_talk_1]},
    )
    assert again.status_code == 409
    assert again.headers["content-type"].startswith("application/problem+json")


async def test_events_resume_after_the_last_event_id(
    client: httpx.AsyncClient, app: FastAPI, runtime: Runtime, tenants: Tenants
) -> None:
    runtime.ai, _ = meeting_model()
    alice = await tenants.member()
    session_id = (await start(client, alice.headers, wake_name="Agentur"))["id"]
    _, _, question, _ = transcript_lines("en")
    await say(client, alice.headers, session_id, question)
    await settled(app, session_id)
    await client.delete(f"/v1/meetings/{session_id}", headers=alice.headers)
    everything = await client.get(f"/v1/meetings/{session_id}/events", headers=alice.headers)
    ids = [int(line[4:]) for line in everything.text.splitlines() if line.startswith("id: ")]
    assert len(ids) >= 3 and ids == sorted(ids)
    resumed = await client.get(
        f"/v1/meetings/{session_id}/events",
        headers={**alice.headers, "Last-Event-ID": str(ids[0])},
    )
    assert [n for n, _ in parse_sse(resumed.text)] == [n for n, _ in parse_sse(everything.text)][1:]
