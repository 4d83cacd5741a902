"""Jira tools against a loopback Jira speaking REST v3: token paging, ADF text, comments that
arrive, Jira's error bodies as clear tool errors, and the token never shown to the model."""

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
from tests.connections.jira_server import JIRA_EMAIL, JIRA_TOKEN, jira_server
from tests.connections.test_mail_run import last_result
from tests.egress.allowed_hosts import allow


async def test_search_pages_read_comment_and_errors(
    runtime: Runtime, tenants: Tenants, monkeypatch: pytest.MonkeyPatch
) -> None:
    alice = await tenants.member("acme")
    with jira_server() as (base_url, state):
        allow(monkeypatch, base_url)
        async with runtime.database.session() as session:
            service = ConnectionService(
                session,
                alice.context,
                credentials_box(runtime.settings),
                runtime.all_settings.connections,
            )
            await service.create(
                "jira", "Ops Jira", {"base_url": base_url, "email": JIRA_EMAIL},
                Credentials(password=JIRA_TOKEN),
            )  # fmt: skip
            await service.commit()
        pages: list[dict] = []

        def next_page(request: AiRequest) -> ScriptedTurn:
            pages.append(last_result(request))
            token = pages[-1]["next_page_token"]
            if token is None:
                return ScriptedTurn.calls(
                    call("jira_get_issue", "g", key="OPS-1"),
                    call("jira_add_comment", "c", key="OPS-1", text="Toner arrived.\nClosing."),
                    call("jira_search_issues", "bad", jql="bogus = 1"),
                    call("jira_get_issue", "missing", key="OPS-99"),
                )
            return ScriptedTurn.calls(
                call("jira_search_issues", f"p{len(pages)}", jql="project = OPS", max_results=2,
                     page_token=token)
            )  # fmt: skip

        ai, provider = scripted(
            [
                ScriptedTurn.calls(
                    call("jira_search_issues", "p0", jql="project = OPS", max_results=2)
                ),
                next_page, next_page, next_page,
                ScriptedTurn(text="done"),
            ]
        )  # fmt: skip
        recorder = Recorder()
        await run_agent("toner?", AgentConfig(), alice.context, deps(ai, runtime=runtime),
                        emit=recorder)  # fmt: skip

    assert [issue["key"] for page in pages for issue in page["issues"]] == [
        f"OPS-{n}" for n in range(1, 6)
    ]
    assert [q.get("nextPageToken") for q in state.search_queries[:3]] == [None, ["2"], ["4"]]
    results = {e["id"]: e for e in recorder.of(EventType.tool_result)}
    issue = json.loads(results["g"]["content"])
    assert issue["description"] == "Printer 1 on floor 2\nNeeds toner"
    assert issue["comments"][0]["text"] == "Ordered toner" and issue["assignee"] == "Bea"
    assert json.loads(results["c"]["content"])["comment_id"] == "10001"
    [comment] = state.comments
    texts = [p["content"][0]["text"] for p in comment["body"]["content"]]
    assert comment["key"] == "OPS-1" and texts == ["Toner arrived.", "Closing."]
    assert results["bad"]["is_error"]
    assert "Jira answered 400: Error in the JQL Query" in results["bad"]["content"]
    assert (
        results["missing"]["is_error"] and "Issue does not exist" in results["missing"]["content"]
    )
    assert JIRA_TOKEN not in repr(provider.received)


async def test_jira_connection_test_reports_jiras_error(
    runtime: Runtime, tenants: Tenants, monkeypatch: pytest.MonkeyPatch
) -> None:
    alice = await tenants.member("acme")
    with jira_server() as (base_url, _):
        allow(monkeypatch, base_url)
        async with runtime.database.session() as session:
            service = ConnectionService(
                session,
                alice.context,
                credentials_box(runtime.settings),
                runtime.all_settings.connections,
            )
            outcomes = []
            for token in (JIRA_TOKEN, "wrong"):
                connection = await service.create(
                    "jira", "Jira", {"base_url": base_url, "email": JIRA_EMAIL},
                    Credentials(password=token),
                )  # fmt: skip
                outcomes.append(await check_connection(service, connection, 5.0))
    assert outcomes[0] is None
    assert outcomes[1] == "Jira answered 401: Client must be authenticated to access this resource."
