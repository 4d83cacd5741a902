"""GET /v1/assistants/{id}/replays/latest: the last replay's counts and rows, 404 before the
first one, and nothing of another mandate's assistant."""

from __future__ import annotations

import httpx

from agentur.assistant.replay import Label, run_replay
from agentur.assistant.settings import AssistantSettings
from agentur.runtime import Runtime
from agentur.storage.models.assistant import Assistant
from tests.assistant.definitions import shop_definition
from tests.assistant.turns import preflight, scripted_ai
from tests.conftest import Tenants

LABELS = [
    Label(text="How do I return shoes?", expected="faq:returns"),
    Label(text="Where is my order?", expected="flow:order_status"),
]


async def _replay(runtime: Runtime, assistant_id: str, flow_confidence: float) -> None:
    ai, _ = scripted_ai(
        preflight(faq="returns", faq_c=0.9), preflight(flow="order_status", flow_c=flow_confidence)
    )
    async with runtime.database.transaction() as session:
        row = await session.get(Assistant, assistant_id)
        assert row is not None
        await run_replay(session, ai, row, LABELS, AssistantSettings())


async def test_latest_replay_shows_changed_and_mismatched_rows(
    client: httpx.AsyncClient, runtime: Runtime, tenants: Tenants
) -> None:
    admin = await tenants.member("acme")
    stranger = await tenants.member("other")
    created = await client.post("/v1/assistants", json=shop_definition(), headers=admin.headers)
    assert created.status_code == 201, created.text
    assistant_id = created.json()["id"]
    path = f"/v1/assistants/{assistant_id}/replays/latest"

    none_yet = await client.get(path, headers=admin.headers)
    assert none_yet.status_code == 404
    assert "no replay yet" in none_yet.json()["detail"]

    await _replay(runtime, assistant_id, flow_confidence=0.9)
    await _replay(runtime, assistant_id, flow_confidence=0.5)  # the flow decision changes
    latest = await client.get(path, headers=admin.headers)
    assert latest.status_code == 200, latest.text
    body = latest.json()
    assert (body["total"], body["changed"], body["mismatched"]) == (2, 1, 1)
    assert body["results"][1] == {
        "text": "Where is my order?",
        "decision": "none",
        "previous": "flow:order_status",
        "expected": "flow:order_status",
    }
    # The replay's decisions are in the decision log too, marked as such.
    decisions = await client.get(f"/v1/assistants/{assistant_id}/decisions", headers=admin.headers)
    replayed = [d for d in decisions.json() if d["replay_id"] == body["id"]]
    assert sorted(d["decision"] for d in replayed) == ["faq:returns", "none"]
    assert {d["mode"] for d in replayed} == {"replay"}

    assert (await client.get(path, headers=stranger.headers)).status_code == 404
