"""A11 windowing of large tool results, and tool discovery by convention."""

from __future__ import annotations

import json

from pydantic import BaseModel

from agentur.agent.config import AgentConfig
from agentur.agent.run_agent import run_agent
from agentur.ai.messages import Role
from agentur.ai.providers.scripted import ScriptedTurn
from agentur.context import RequestContext
from agentur.context import Role as UserRole
from agentur.tools.registry import ToolRegistry
from agentur.tools.tool import Tool, ToolContext
from agentur.tools.windowing import TOOLS as WINDOW_TOOLS
from tests.agent.support import deps, scripted


class Empty(BaseModel):
    pass


BIG = "".join(f"{i:05d}" for i in range(2000))  # 10,000 characters


async def big(_: Empty, __: ToolContext) -> str:
    return BIG


async def test_large_result_is_windowed_with_total_length_and_can_be_read_on() -> None:
    ai, provider = scripted(
        [
            ScriptedTurn.call("big", "c1"),
            ScriptedTurn.call("read_tool_result", "c2", result_id="c1", offset=1000, limit=500),
            ScriptedTurn(text="read it"),
        ]
    )
    tools = [Tool("big", "b", Empty, big, read_only=True), *WINDOW_TOOLS]
    context = RequestContext("u", "m", UserRole.member)
    await run_agent("x", AgentConfig(), context, deps(ai, tools, agent_max_tool_result_chars=1000))

    first = json.loads(
        next(m for m in provider.received[1].messages if m.role is Role.tool).content
    )
    assert first["total_length"] == 10_000 and first["window"] == BIG[:1000]
    assert first["next_offset"] == 1000 and "read_tool_result" in first["note"]
    second = json.loads(
        [m for m in provider.received[2].messages if m.role is Role.tool][-1].content
    )
    assert second["window"] == BIG[1000:1500]
    assert second["total_length"] == 10_000 and second["next_offset"] == 1500


def test_discovery_finds_every_tool_family_without_registration() -> None:
    names = ToolRegistry.discover().names()
    for expected in (
        "read_file", "list_files", "search_in_file_content", "write_file", "delete_file",
        "rename_file", "move_file", "tag_file", "copy_file", "replace_in_file",
        "list_folders", "create_folder", "delete_folder", "rename_folder", "move_folder",
        "list_workflow_history", "read_workflow_messages", "read_tool_result",
    ):  # fmt: skip
        assert expected in names
    for tool in ToolRegistry.discover().all():
        assert tool.json_schema()["type"] == "object"
