"""The `email` toolbox is offered only to a caller with a working mail connection (their own or
their mandate's shared one): `request_toolbox` refuses it otherwise."""

from __future__ import annotations

import pytest
from sqlalchemy import update

from agentur.agent.config import AgentConfig
from agentur.agent.events import EventType
from agentur.agent.run_agent import run_agent
from agentur.ai.providers.scripted import ScriptedTurn
from agentur.context import Role
from agentur.runtime import Runtime
from agentur.storage.models.connections import Connection
from tests.agent.support import Recorder, call, deps, scripted
from tests.conftest import Member, Tenants
from tests.connections.test_mail_run import add_mail_connection
from tests.egress.allowed_hosts import allow


async def offered_tools(
    runtime: Runtime, member: Member, config: AgentConfig | None = None
) -> tuple[set[str], dict]:
    ai, provider = scripted(
        [
            ScriptedTurn.calls(call("request_toolbox", "t", toolbox_id="email", reason="mail")),
            ScriptedTurn(text="done"),
        ]
    )
    recorder = Recorder()
    await run_agent("mail?", config or AgentConfig(), member.context, deps(ai, runtime=runtime),
                    emit=recorder)  # fmt: skip
    [result] = recorder.of(EventType.tool_result)
    return {tool.name for tool in provider.received[0].tools}, result


async def test_email_toolbox_follows_working_mail_connections(
    runtime: Runtime, tenants: Tenants, monkeypatch: pytest.MonkeyPatch
) -> None:
    allow(monkeypatch, 1, 2)  # the connection below names 127.0.0.1:1 and :2 (never reached)
    admin = await tenants.member("acme", Role.admin)
    member = await tenants.member("acme")
    outsider = await tenants.member("evil")

    tools, result = await offered_tools(runtime, member)
    assert "search_mail" not in tools and "list_connections" in tools
    assert result["is_error"] and "needs a mail connection" in result["content"]

    # A shared connection of the mandate counts for its members, not for other mandates.
    connection_id = await add_mail_connection(runtime, admin, 1, 2, shared=True)
    tools, _ = await offered_tools(runtime, member)
    assert {"search_mail", "read_mail", "save_attachment", "send_mail"} <= tools
    # send_mail acts on the outside world: an action tool, left out on request.
    tools, _ = await offered_tools(runtime, member, AgentConfig(exclude_action_tools=True))
    assert "search_mail" in tools and "send_mail" not in tools
    tools, result = await offered_tools(runtime, outsider)
    assert "search_mail" not in tools and result["is_error"]

    # A connection whose last test or use failed is not a working one.
    async with runtime.database.transaction() as session:
        await session.execute(
            update(Connection).where(Connection.id == connection_id).values(status="failed")
        )
    tools, result = await offered_tools(runtime, member)
    assert "search_mail" not in tools and "needs a mail connection" in result["content"]
