"""The lifecycle wrapper checks a tool's URL arguments before its handler runs."""

from __future__ import annotations

from pydantic import BaseModel

from agentur.agent.config import AgentConfig
from agentur.agent.events import EventType
from agentur.agent.run_agent import run_agent
from agentur.ai.providers.scripted import ScriptedTurn
from agentur.context import RequestContext, Role
from agentur.tools.tool import Tool, ToolContext
from tests.agent.support import Recorder, deps, scripted


class Url(BaseModel):
    url: str


async def test_lifecycle_wrapper_refuses_url_arguments_before_the_handler_runs() -> None:
    ran: list[str] = []

    async def read_url(args: Url, _: ToolContext) -> str:
        ran.append(args.url)
        return "fetched"

    tool = Tool("read_url", "r", Url, read_url, read_only=True, url_arguments=("url",))
    ai, _ = scripted([ScriptedTurn.call("read_url", "c1", url="http://127.0.0.1:9/x")])
    recorder = Recorder()
    await run_agent(
        "x",
        AgentConfig(max_rounds=1),
        RequestContext("u", "m", Role.member),
        deps(ai, [tool]),
        emit=recorder,
    )
    result = recorder.of(EventType.tool_result)[0]
    assert result["is_error"] and "loopback" in result["content"]
    assert ran == []
