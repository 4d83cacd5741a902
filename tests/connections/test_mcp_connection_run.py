"""An MCP server as a connection: a server written with the official `mcp` SDK on 127.0.0.1
(bearer-protected), its tools offered through `request_toolbox` and called by a scripted agent
run through the lifecycle wrapper; read-only only where the server declares it."""

from __future__ import annotations

import json

import pytest
from mcp.server.mcpserver import MCPServer
from mcp_types import ToolAnnotations
from starlette.types import ASGIApp, Receive, Scope, Send

from agentur.agent.config import AgentConfig
from agentur.agent.events import EventType
from agentur.agent.run_agent import run_agent
from agentur.ai.messages import AiRequest
from agentur.ai.providers.scripted import ScriptedTurn
from agentur.connections.check_connection import check_connection
from agentur.connections.kinds import Credentials
from agentur.connections.service import ConnectionService, credentials_box
from agentur.runtime import Runtime
from agentur.tools.mcp_tools import load_mcp_tools
from agentur.tools.tool import ToolContext
from tests.agent.support import Recorder, call, deps, scripted
from tests.api.live_server import live_server
from tests.conftest import Member, Tenants
from tests.egress.allowed_hosts import allow

TOKEN = "mcp-secret-token"


def weather_server(calls: list[tuple[str, dict]]) -> ASGIApp:
    server = MCPServer("weather")

    @server.tool(annotations=ToolAnnotations(read_only_hint=True))
    def forecast(city: str) -> str:
        """Tomorrow's weather in a city."""
        calls.append(("forecast", {"city": city}))
        return f"{city}: sunny, 21 °C"

    @server.tool()
    def book_room(room: str) -> str:
        """Book a meeting room."""
        calls.append(("book_room", {"room": room}))
        return f"booked {room}"

    inner = server.streamable_http_app(stateless_http=True, json_response=True)

    async def app(scope: Scope, receive: Receive, send: Send) -> None:
        headers = dict(scope.get("headers") or [])
        if scope["type"] == "http" and headers.get(b"authorization") != f"Bearer {TOKEN}".encode():
            await send({"type": "http.response.start", "status": 401, "headers": []})
            await send({"type": "http.response.body", "body": b"no"})
            return
        await inner(scope, receive, send)

    return app


async def add_connection(
    runtime: Runtime, member: Member, url: str, token: str, *, neutralize: bool = False
) -> str | None:
    async with runtime.database.session() as session:
        service = ConnectionService(
            session,
            member.context,
            credentials_box(runtime.settings),
            runtime.all_settings.connections,
        )
        connection = await service.create(
            "mcp", "Weather", {"url": url}, Credentials(password=token), neutralize=neutralize
        )
        error = await check_connection(service, connection, 5.0)
        await service.commit()
    return error


async def test_an_agent_run_uses_a_tool_of_a_connected_mcp_server(
    runtime: Runtime, tenants: Tenants, monkeypatch: pytest.MonkeyPatch
) -> None:
    alice = await tenants.member("acme")
    mallory = await tenants.member("umbrella")
    calls: list[tuple[str, dict]] = []
    offered: list[list[str]] = []

    def use_tools(request: AiRequest) -> ScriptedTurn:
        offered.append([tool.name for tool in request.tools])
        return ScriptedTurn.calls(
            call("Weather__forecast", "f", city="Bern"),
            call("Weather__forecast", "bad", town="Bern"),
        )

    async with live_server(weather_server(calls)) as base_url:
        allow(monkeypatch, base_url)
        url = f"{base_url}/mcp"
        refused = await add_connection(runtime, alice, url, "wrong-token")
        assert refused is not None and "401" in refused
        assert await add_connection(runtime, alice, url, TOKEN) is None
        ai, provider = scripted(
            [
                ScriptedTurn.calls(
                    call("request_toolbox", "t", toolbox_id="mcp", reason="weather")
                ),
                use_tools,
                ScriptedTurn(text="Sunny in Bern."),
            ]
        )
        recorder = Recorder()
        result = await run_agent(
            "weather in Bern?", AgentConfig(), alice.context, deps(ai, runtime=runtime),
            emit=recorder,
        )  # fmt: skip
        alices = await load_mcp_tools(ToolContext(request=alice.context, runtime=runtime))
        mallorys = await load_mcp_tools(ToolContext(request=mallory.context, runtime=runtime))

    assert result.final_text == "Sunny in Bern."
    assert {"Weather__forecast", "Weather__book_room"} <= set(offered[0])
    results = {event["id"]: event for event in recorder.of(EventType.tool_result)}
    assert json.loads(results["t"]["content"])["toolbox_id"] == "mcp"
    assert not results["f"]["is_error"] and "Bern: sunny, 21 °C" in results["f"]["content"]
    assert (
        results["bad"]["is_error"] and "'city' is a required property" in results["bad"]["content"]
    )
    assert calls == [("forecast", {"city": "Bern"})]  # the invalid call never left agentur
    # Parallel (read-only) only where the server declared it.
    assert {tool.name: tool.read_only for tool in alices} == {
        "Weather__forecast": True,
        "Weather__book_room": False,
    }
    assert mallorys == []
    assert TOKEN not in repr(provider.received)


async def test_a_neutralize_connection_shows_remote_results_with_placeholders(
    runtime: Runtime, tenants: Tenants, monkeypatch: pytest.MonkeyPatch
) -> None:
    alice = await tenants.member("acme")
    calls: list[tuple[str, dict]] = []
    async with live_server(weather_server(calls)) as base_url:
        allow(monkeypatch, base_url)
        assert (
            await add_connection(runtime, alice, f"{base_url}/mcp", TOKEN, neutralize=True) is None
        )
        ai, _ = scripted(
            [
                ScriptedTurn.calls(call("request_toolbox", "t", toolbox_id="mcp", reason="x")),
                ScriptedTurn.calls(call("Weather__forecast", "f", city="anna@supplier.test")),
                ScriptedTurn(text="done"),
            ]
        )
        recorder = Recorder()
        await run_agent("weather?", AgentConfig(), alice.context, deps(ai, runtime=runtime),
                        emit=recorder)  # fmt: skip
    [result] = [e for e in recorder.of(EventType.tool_result) if e["id"] == "f"]
    assert calls == [("forecast", {"city": "anna@supplier.test"})]
    assert not result["is_error"] and "sunny, 21 °C" in result["content"]
    assert "anna@supplier.test" not in result["content"]
