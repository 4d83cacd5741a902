"""A connection's own host:port is allowed for that connection only: a redirect from it to
another internal address is refused by the egress check, and that address is never reached."""

from __future__ import annotations

from agentur.agent.config import AgentConfig
from agentur.agent.events import EventType
from agentur.agent.run_agent import run_agent
from agentur.ai.providers.scripted import ScriptedTurn
from agentur.connections.kinds import Credentials
from agentur.connections.service import ConnectionService, credentials_box
from agentur.runtime import Runtime
from tests.agent.support import Recorder, call, deps, scripted
from tests.conftest import Tenants
from tests.connections.json_server import JsonHandler, serving


async def test_redirect_to_another_internal_port_is_refused(
    runtime: Runtime, tenants: Tenants
) -> None:
    reached: list[str] = []

    class Inner(JsonHandler):
        def do_GET(self) -> None:  # noqa: N802
            reached.append(self.path)
            self.reply(200, {"key": "SECRET-1", "fields": {"summary": "internal"}})

    alice = await tenants.member("acme")
    with serving(Inner) as inner_port:

        class Outer(JsonHandler):
            def do_GET(self) -> None:  # noqa: N802
                self.send_response(302)
                self.send_header("location", f"http://127.0.0.1:{inner_port}/rest/api/3/issue/X")
                self.send_header("content-length", "0")
                self.end_headers()

        with serving(Outer) as outer_port:
            async with runtime.database.session() as session:
                service = ConnectionService(
                    session, alice.context, credentials_box(runtime.settings.data_dir)
                )
                settings = {"base_url": f"http://127.0.0.1:{outer_port}", "email": "a@b.c"}
                await service.create("jira", "Jira", settings, Credentials(password="token"))
                await service.commit()
            ai, _ = scripted(
                [
                    ScriptedTurn.calls(call("jira_get_issue", "g", key="OPS-1")),
                    ScriptedTurn(text="done"),
                ]
            )
            recorder = Recorder()
            await run_agent("go", AgentConfig(), alice.context, deps(ai, runtime=runtime),
                            emit=recorder)  # fmt: skip
    [result] = recorder.of(EventType.tool_result)
    assert result["is_error"] and "loopback" in result["content"], result["content"]
    assert reached == []
