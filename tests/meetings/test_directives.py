"""The director panel: persistent directives stand in every fast-path prompt until withdrawn,
a one-shot directive runs the agent without the fast path, and only operators may direct."""

from __future__ import annotations

import httpx
from fastapi import FastAPI

from agentur.ai.operation_types import OperationType
from agentur.context import Role
from agentur.runtime import Runtime
from tests.conftest import Tenants
from tests.meetings.support import (
    AGENT_ANSWER,
    ANSWER,
    events,
    meeting_model,
    of,
    say,
    settled,
    start,
    transcript_lines,
)
from tests.reread_settings import reread_settings


async def test_a_persistent_directive_changes_later_prompts_until_withdrawn(
    client: httpx.AsyncClient, app: FastAPI, runtime: Runtime, tenants: Tenants
) -> None:
    runtime.ai, model = meeting_model()
    alice = await tenants.member()
    session_id = (await start(client, alice.headers, languages=["de"], wake_name="Agentur"))["id"]
    _, _, question, _ = transcript_lines("de")

    await say(client, alice.headers, session_id, question)
    await settled(app, session_id)
    added = await client.post(
        f"/v1/meetings/{session_id}/directives",
        headers=alice.headers,
        json={"kind": "persistent", "text": "Always answer in English."},
    )
    assert added.status_code == 201, added.text
    directive = added.json()
    assert directive["kind"] == "persistent" and directive["withdrawn_at"] is None
    await say(client, alice.headers, session_id, question)
    await settled(app, session_id)
    withdrawn = await client.delete(
        f"/v1/meetings/{session_id}/directives/{directive['id']}", headers=alice.headers
    )
    assert withdrawn.status_code == 200 and withdrawn.json()["withdrawn_at"]
    await say(client, alice.headers, session_id, question)
    await settled(app, session_id)

    systems = [r.messages[0].content for r in of(model, OperationType.meeting_reply)]
    assert ["OPERATOR_DIRECTIVES" in s for s in systems] == [False, True, False]
    assert "- Always answer in English." in systems[1].split("OPERATOR_DIRECTIVES")[1]
    replies = [data["text"] for name, data in events(app, session_id) if name == "reply"]
    assert replies == [ANSWER["de"], ANSWER["en"], ANSWER["de"]]
    shown = (await client.get(f"/v1/meetings/{session_id}", headers=alice.headers)).json()
    assert [d["id"] for d in shown["directives"]] == [directive["id"]]
    assert shown["directives"][0]["withdrawn_at"] is not None
    await client.delete(f"/v1/meetings/{session_id}", headers=alice.headers)


async def test_a_one_shot_directive_runs_the_agent_without_the_fast_path(
    client: httpx.AsyncClient, app: FastAPI, runtime: Runtime, tenants: Tenants
) -> None:
    runtime.ai, model = meeting_model()
    alice = await tenants.member()
    meeting = await start(client, alice.headers, languages=["de"])
    brief = "Recherchiere die aktuelle Python-Version und fasse sie in einem Satz zusammen."
    sent = await client.post(
        f"/v1/meetings/{meeting['id']}/directives",
        headers=alice.headers,
        json={"kind": "one_shot", "text": brief},
    )
    assert sent.status_code == 201, sent.text
    assert sent.json()["withdrawn_at"] is not None  # used up as it is sent
    await settled(app, meeting["id"])
    assert of(model, OperationType.meeting_reply) == []
    agent_calls = of(model, OperationType.agent)
    assert len(agent_calls) == 1 and agent_calls[0].workflow_id == meeting["workflow_id"]
    happened = events(app, meeting["id"])
    assert happened[0] == ("agent_started", {"brief": brief, "source": "directive"})
    final = next(data for name, data in happened if name == "agent_final")
    assert final["text"] == AGENT_ANSWER["de"]
    assert [d["text"] for n, d in happened if n == "reply"] == [AGENT_ANSWER["de"]]
    await client.delete(f"/v1/meetings/{meeting['id']}", headers=alice.headers)


async def test_only_operators_direct_and_other_mandates_see_nothing(
    client: httpx.AsyncClient, app: FastAPI, runtime: Runtime, tenants: Tenants
) -> None:
    runtime.ai, model = meeting_model()
    owner = await tenants.member()
    colleague = await tenants.member()  # same mandate, not an operator
    named = await tenants.member()  # named as operator at the start
    admin = await tenants.member(role=Role.admin)
    stranger = await tenants.member("globex")
    meeting = await start(client, owner.headers, operator_ids=[named.user_id])
    directives = f"/v1/meetings/{meeting['id']}/directives"
    body = {"kind": "persistent", "text": "Answer in English."}

    refused = await client.post(directives, headers=colleague.headers, json=body)
    assert refused.status_code == 403
    assert refused.headers["content-type"].startswith("application/problem+json")
    assert "operators" in refused.json()["detail"]
    assert (
        await client.delete(f"/v1/meetings/{meeting['id']}", headers=colleague.headers)
    ).status_code == 403
    for operator in (owner, named, admin):
        assert (
            await client.post(directives, headers=operator.headers, json=body)
        ).status_code == 201
    first = (await client.get(f"/v1/meetings/{meeting['id']}", headers=owner.headers)).json()
    withdrawn = await client.delete(
        f"{directives}/{first['directives'][0]['id']}", headers=colleague.headers
    )
    assert withdrawn.status_code == 403

    # A member may still speak in the meeting; another mandate finds no such meeting at all.
    await say(client, colleague.headers, meeting["id"], {"speaker": "C", "text": "Hallo."})
    for method, path, json in (
        ("GET", f"/v1/meetings/{meeting['id']}", None),
        ("GET", f"/v1/meetings/{meeting['id']}/events", None),
        (
            "POST",
            f"/v1/meetings/{meeting['id']}/transcript",
            {"utterances": [{"speaker": "x", "text": "y"}]},
        ),
        ("POST", directives, body),
        ("DELETE", f"{directives}/{first['directives'][0]['id']}", None),
        ("DELETE", f"/v1/meetings/{meeting['id']}", None),
    ):
        answer = await client.request(method, path, headers=stranger.headers, json=json)
        assert answer.status_code == 404, (method, path, answer.text)

    viewer = await tenants.member(role=Role.viewer)
    assert (await client.post("/v1/meetings", headers=viewer.headers, json={})).status_code == 403
    await settled(app, meeting["id"])
    await client.delete(f"/v1/meetings/{meeting['id']}", headers=owner.headers)


async def test_bad_input_is_refused_with_a_specific_problem(
    client: httpx.AsyncClient, runtime: Runtime, tenants: Tenants, monkeypatch
) -> None:
    runtime.ai, _ = meeting_model()
    monkeypatch.setenv("AGENTUR_MEETING_MAX_UTTERANCES_PER_BATCH", "2")
    monkeypatch.setenv("AGENTUR_MEETING_MAX_UTTERANCE_CHARS", "50")
    reread_settings(runtime)
    alice = await tenants.member()
    assert (
        await client.post("/v1/meetings", headers=alice.headers, json={"languages": ["German"]})
    ).status_code == 422
    unknown = await client.post(
        "/v1/meetings", headers=alice.headers, json={"operator_ids": ["nobody"]}
    )
    assert unknown.status_code == 404 and "nobody" in unknown.json()["detail"]
    meeting = await start(client, alice.headers)
    path = f"/v1/meetings/{meeting['id']}/transcript"
    three = {"utterances": [{"speaker": "a", "text": "b"}] * 3}
    too_many = await client.post(path, headers=alice.headers, json=three)
    assert (
        too_many.status_code == 422 and "AGENTUR_MEETING_MAX_UTTERANCES_PER_BATCH" in too_many.text
    )
    long = {"utterances": [{"speaker": "a", "text": "x" * 51}]}
    too_long = await client.post(path, headers=alice.headers, json=long)
    assert too_long.status_code == 422 and "AGENTUR_MEETING_MAX_UTTERANCE_CHARS" in too_long.text
    kind = await client.post(
        f"/v1/meetings/{meeting['id']}/directives",
        headers=alice.headers,
        json={"kind": "always", "text": "x"},
    )
    assert kind.status_code == 422
    await client.delete(f"/v1/meetings/{meeting['id']}", headers=alice.headers)
