"""Two meetings at once: each has its own workflow, and neither the fast path nor the agent of
one sees what was said or found in the other."""

from __future__ import annotations

import httpx
from fastapi import FastAPI

from agentur.ai.operation_types import OperationType
from agentur.runtime import Runtime
from tests.conftest import Tenants
from tests.meetings.support import meeting_model, of, say, settled, start

SECRET_A = "Das Projekt Kolibri startet am 3. März."
SECRET_B = "Project Heron ships in April."


async def test_two_sessions_keep_their_workflows_and_memories_apart(
    client: httpx.AsyncClient, app: FastAPI, runtime: Runtime, tenants: Tenants
) -> None:
    runtime.ai, model = meeting_model()
    alice = await tenants.member()
    first = await start(client, alice.headers, title="A", wake_name="Agentur")
    second = await start(client, alice.headers, title="B", wake_name="Agentur")
    assert first["workflow_id"] != second["workflow_id"]
    await say(client, alice.headers, first["id"], {"speaker": "Anna", "text": SECRET_A})
    await say(client, alice.headers, second["id"], {"speaker": "Ben", "text": SECRET_B})
    await say(
        client,
        alice.headers,
        first["id"],
        {"speaker": "Anna", "text": "Agentur, recherchier das im Internet: Kolibri Zeitplan?"},
    )
    await say(
        client,
        alice.headers,
        second["id"],
        {"speaker": "Ben", "text": "Agentur, look this up on the internet: Heron schedule?"},
    )
    await settled(app, first["id"])
    await settled(app, second["id"])

    by_workflow: dict[str, list[str]] = {}
    for request in of(model, OperationType.meeting_reply) + of(model, OperationType.agent):
        sent = "\n".join(m.content for m in request.messages)
        by_workflow.setdefault(request.workflow_id, []).append(sent)
    assert set(by_workflow) == {first["workflow_id"], second["workflow_id"]}
    assert len(of(model, OperationType.agent)) == 2
    for own, secret, foreign in (
        (first, SECRET_A, SECRET_B),
        (second, SECRET_B, SECRET_A),
    ):
        assert any(secret in sent for sent in by_workflow[own["workflow_id"]])
        assert not any(foreign in sent for sent in by_workflow[own["workflow_id"]])
        items = (
            await client.get(f"/v1/workflows/{own['workflow_id']}/messages", headers=alice.headers)
        ).json()["items"]
        text = "\n".join(item["content"] for item in items)
        assert secret in text and foreign not in text
        runs = [item["data"]["agent_run_id"] for item in items if item["role"] == "user"]
        assert len(runs) == 1
    for meeting in (first, second):
        await client.delete(f"/v1/meetings/{meeting['id']}", headers=alice.headers)
