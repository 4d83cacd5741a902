"""Every tool schema agentur can offer passes the rules of the strictest common consumers
(OpenAI's function calling, llama.cpp's JSON-schema-to-grammar; the rules are written down in
tests/tools/schema_rules.py). "Every": all tools of all toolboxes (connection kinds, features,
the code sandbox, workflow and trustee action tools), `request_toolbox` for each set of
inactive toolboxes a run can have, the tools agentur exposes over MCP, and a remote MCP tool's
schema as agentur passes it on. The real llama-server runs the same schemas in the slow tier
(tests/real_servers/test_llama_server.py)."""

from __future__ import annotations

from typing import Any

import mcp_types as types
import pytest

from agentur.agent.tool_round import tool_definition
from agentur.api.mcp.exposed_tools import exposed_tools, mcp_tool
from agentur.connections.mcp_client import McpAccess
from agentur.context import RequestContext, Role
from agentur.tools.mcp_tools import remote_tool
from agentur.tools.registry import ToolRegistry
from agentur.tools.toolboxes import TOOLBOXES, ToolboxEnvironment, ToolboxState
from agentur.tools.toolboxes import request_toolbox_tool as meta_tool
from tests.tools.schema_rules import llama_cpp_problems, openai_problems

EVERYTHING = ToolboxEnvironment(
    connections=frozenset(box.requires_connection for box in TOOLBOXES.values() if box.requires_connection),  # noqa: E501
    feature_codes=frozenset(box.requires_feature_code for box in TOOLBOXES.values() if box.requires_feature_code),  # noqa: E501
)  # fmt: skip


def every_offered_schema() -> list[tuple[str, dict[str, Any]]]:
    registry = ToolRegistry.discover()
    schemas = []
    for tool in registry.all():
        definition = tool_definition(tool)
        schemas.append((f"{tool.toolbox}/{definition.name}", definition.parameters))
    # request_toolbox: from a default run's start, and with only one box left to ask for
    for active in (set(), set(TOOLBOXES) - {"code"}):
        state = ToolboxState.initial(EVERYTHING, sorted(active))
        meta = meta_tool(state)
        assert meta is not None
        offered = tool_definition(meta).parameters
        schemas.append((f"request_toolbox{sorted(state.inactive)}", offered))
    writer = RequestContext("u", "m", Role.admin)
    for tool in exposed_tools(registry, writer, web=True).values():
        announced = mcp_tool(tool)
        schemas.append((f"mcp-exposed/{announced.name}", announced.input_schema))
    return schemas  # fmt: skip


CASES = every_offered_schema()


@pytest.mark.parametrize(("name", "schema"), CASES, ids=[name for name, _ in CASES])
def test_schema_passes_openai_rules(name: str, schema: dict[str, Any]) -> None:
    assert openai_problems(name.rsplit("/", 1)[-1].split("[")[0], schema) == []


@pytest.mark.parametrize(("name", "schema"), CASES, ids=[name for name, _ in CASES])
def test_schema_passes_llama_cpp_rules(name: str, schema: dict[str, Any]) -> None:
    assert llama_cpp_problems(name, schema) == []


def test_every_toolbox_is_covered() -> None:
    covered = {name.split("/")[0] for name, _ in CASES}
    static = {box for box in TOOLBOXES if TOOLBOXES[box].load_tools is None}
    assert static <= covered, static - covered
    assert any(name.startswith("mcp-exposed/") for name, _ in CASES)


def test_offsets_are_bounded_on_both_sides() -> None:
    schemas = dict(CASES)
    for name in ("core/list_workflow_history", "core/read_workflow_messages"):
        offset = schemas[name]["properties"]["offset"]
        assert offset["minimum"] == 0 and 0 < offset["maximum"] < 2**53, offset


def test_a_remote_tools_sentinel_bounds_are_dropped_before_a_model_sees_them() -> None:
    """An MCP server may declare INT64_MAX as a maximum (what broke llama.cpp build 10434):
    the schema agentur offers carries no sentinel, while real bounds stay."""
    remote = types.Tool(
        name="page",
        input_schema={
            "type": "object",
            "properties": {
                "offset": {"type": "integer", "maximum": 2**63 - 1},
                "size": {"type": "integer", "minimum": 1, "maximum": 100},
            },
        },
    )
    tool = remote_tool(McpAccess("http://127.0.0.1:9/mcp", "", 1.0), "srv", remote, False)
    parameters = tool_definition(tool).parameters
    assert llama_cpp_problems("remote", parameters) == []
    assert parameters["properties"]["offset"] == {"type": "integer"}
    assert parameters["properties"]["size"] == {"type": "integer", "minimum": 1, "maximum": 100}


def test_the_rules_catch_what_broke_a_real_server() -> None:
    """The checks are not vacuous: the schema that made build 10434 answer HTTP 400."""
    broken = {"type": "object", "properties": {"offset": {"type": "integer", "maximum": 2**63 - 1}}}  # noqa: E501
    assert llama_cpp_problems("x", broken)
    assert openai_problems("x", {"type": "object", "properties": {"a": {"allOf": []}}})
