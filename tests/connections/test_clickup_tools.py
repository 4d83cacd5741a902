"""ClickUp tools against a loopback ClickUp speaking API v2: page paging to the last page, a
comment that arrives, error bodies as clear tool errors, the token never shown to the model."""

from __future__ import annotations

import json

import pytest

from agentur.agent.config import AgentConfig
from agentur.agent.events import EventType
from agentur.agent.run_agent import run_agent
from agentur.ai.providers.scripted import ScriptedTurn
from agentur.connections.check_connection import check_connection
from agentur.connections.kinds import Credentials
from agentur.connections.service import ConnectionService, credentials_box
from agentur.runtime import Runtime
from tests.agent.support import Recorder, call, deps, scripted
from tests.conftest import Tenants
from tests.connections.clickup_server import CLICKUP_TOKEN, clickup_server
from tests.egress.allowed_hosts import allow


async def test_pages_task_comment_errors_and_test_action(
    runtime: Runtime, tenants: Tenants, monkeypatch: pytest.MonkeyPatch
) -> None:
    alice = await tenants.member("acme")
    with clickup_server() as (base_url, state):
        allow(monkeypatch, base_url)
        async with runtime.database.session() as session:
            service = ConnectionService(
                session,
                alice.context,
                credentials_box(runtime.settings),
                runtime.all_settings.connections,
            )
            good = await service.create(
                "clickup", "ClickUp", {"base_url": base_url}, Credentials(password=CLICKUP_TOKEN)
            )
            assert await check_connection(service, good, 5.0) is None
            bad = await service.create(
                "clickup", "Old", {"base_url": base_url}, Credentials(password="pk_old")
            )
            assert await check_connection(service, bad, 5.0) == (
                "ClickUp answered 401: Token invalid (OAUTH_025)"
            )
            await service.delete(bad.id)
            await service.commit()
        ai, provider = scripted(
            [
                ScriptedTurn.calls(
                    call("clickup_list_tasks", "p0", list_id="901"),
                    call("clickup_list_tasks", "p1", list_id="901", page=1),
                    call("clickup_get_task", "g", task_id="t7"),
                    call("clickup_add_comment", "c", task_id="t7", text="Done on Monday."),
                    call("clickup_get_task", "missing", task_id="nope"),
                ),
                ScriptedTurn(text="done"),
            ]
        )
        recorder = Recorder()
        await run_agent("tasks?", AgentConfig(), alice.context, deps(ai, runtime=runtime),
                        emit=recorder)  # fmt: skip

    results = {e["id"]: json.loads(e["content"]) if not e["is_error"] else e["content"]
               for e in recorder.of(EventType.tool_result)}  # fmt: skip
    assert len(results["p0"]["tasks"]) == 100 and results["p0"]["next_page"] == 1
    assert len(results["p1"]["tasks"]) == 50 and results["p1"]["next_page"] is None
    assert results["g"]["description"] == "Details of task 7"
    assert results["c"]["comment_id"] == 458
    assert state.comments == [
        {"task_id": "t7", "comment_text": "Done on Monday.", "notify_all": False}
    ]
    assert results["missing"] == "error: ClickUp: Task not found, deleted (ITEM_013)"
    assert CLICKUP_TOKEN not in repr(provider.received)
