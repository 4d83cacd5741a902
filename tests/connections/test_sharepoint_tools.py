"""SharePoint/OneDrive tools against a loopback Microsoft sign-in + Graph: client-credentials
token, nextLink paging, a download through Graph's redirect that inherits `neutralize` (the
next model call sees placeholders), both error shapes, and no secret shown to the model."""

from __future__ import annotations

import json

import pytest

from agentur.agent.config import AgentConfig
from agentur.agent.events import EventType
from agentur.agent.run_agent import run_agent
from agentur.ai.messages import AiRequest
from agentur.ai.providers.scripted import ScriptedTurn
from agentur.connections.check_connection import check_connection
from agentur.connections.kinds import Credentials
from agentur.connections.service import ConnectionService, credentials_box
from agentur.runtime import Runtime
from tests.agent.support import Recorder, call, deps, scripted
from tests.conftest import Tenants
from tests.connections.graph_server import (
    ACCESS_TOKEN,
    CLIENT_ID,
    CLIENT_SECRET,
    DRIVE,
    graph_server,
)
from tests.connections.test_mail_run import last_result
from tests.egress.allowed_hosts import allow


async def test_list_pages_download_neutralized_and_errors(
    runtime: Runtime, tenants: Tenants, monkeypatch: pytest.MonkeyPatch
) -> None:
    alice = await tenants.member("acme")
    with graph_server() as (base, state):
        allow(monkeypatch, base)
        settings = {
            "tenant_id": "contoso", "client_id": CLIENT_ID,
            "token_url": f"{base}/{{tenant_id}}/oauth2/v2.0/token", "graph_url": f"{base}/v1.0/",
        }  # fmt: skip
        async with runtime.database.session() as session:
            service = ConnectionService(
                session,
                alice.context,
                credentials_box(runtime.settings),
                runtime.all_settings.connections,
            )
            wrong = await service.create(
                "microsoft", "Old", settings, Credentials(password="expired")
            )
            failure = await check_connection(service, wrong, 5.0)
            await service.delete(wrong.id)
            good = await service.create(
                "microsoft", "M365", settings, Credentials(password=CLIENT_SECRET),
                neutralize=True,
            )  # fmt: skip
            assert await check_connection(service, good, 5.0) is None
            await service.commit()

        def next_page(request: AiRequest) -> ScriptedTurn:
            first = last_result(request)
            return ScriptedTurn.calls(
                call("sharepoint_list_items", "p1", drive_id=DRIVE,
                     page_url=first["next_page_url"]),
                call("sharepoint_download", "d", drive_id=DRIVE, item_id="item3"),
                call("sharepoint_list_items", "missing", drive_id="b!nope"),
            )  # fmt: skip

        ai, provider = scripted(
            [
                ScriptedTurn.calls(call("sharepoint_list_items", "p0", drive_id=DRIVE)),
                next_page,
                lambda request: ScriptedTurn.calls(
                    call("read_file", "r", file_id=json.loads(
                        next(m.content for m in request.messages if m.tool_call_id == "d")
                    )["file_id"])
                ),
                ScriptedTurn(text="done"),
            ]
        )  # fmt: skip
        recorder = Recorder()
        await run_agent("notes?", AgentConfig(), alice.context, deps(ai, runtime=runtime),
                        emit=recorder)  # fmt: skip

    assert (
        failure == "Microsoft sign-in answered 401: invalid_client: AADSTS7000215: "
        "Invalid client secret provided."
    )
    assert state.token_requests[-1]["scope"] == ["https://graph.microsoft.com/.default"]
    results = {e["id"]: e for e in recorder.of(EventType.tool_result)}
    first, second = (json.loads(results[k]["content"]) for k in ("p0", "p1"))
    assert [i["name"] for i in first["items"] + second["items"]] == [
        "Notes 1.txt", "Notes 2.txt", "Notes 3.txt"
    ]  # fmt: skip
    assert second["next_page_url"] is None
    downloaded = json.loads(results["d"]["content"])
    assert downloaded["name"] == "Notes 3.txt" and downloaded["neutralize"] is True
    assert results["missing"]["is_error"]
    assert "itemNotFound: The resource could not be found." in results["missing"]["content"]
    after_read = repr(provider.received[3].messages)
    assert "Meeting with" in after_read and "peter.keller@example.com" not in after_read
    assert CLIENT_SECRET not in repr(provider.received)
    assert ACCESS_TOKEN not in repr(provider.received)
