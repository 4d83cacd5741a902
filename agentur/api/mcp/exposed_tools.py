"""Which of agentur's tools an MCP client may call, and how they are announced.

An allow-list, not the registry: tools that need a run (workflow actions, sub-agents,
`request_toolbox`) or a connection's credentials stay agent-only. Annotations are hints for
the client (its confirmation prompts); authorization is still the lifecycle wrapper's job.
"""

from __future__ import annotations

import mcp_types as types

from agentur.context import RequestContext
from agentur.tools.model_schema import model_schema
from agentur.tools.registry import ToolRegistry
from agentur.tools.tool import Tool

WORKSPACE_TOOLS = (
    "read_file",
    "list_files",
    "search_in_file_content",
    "write_file",
    "delete_file",
    "rename_file",
    "move_file",
    "tag_file",
    "copy_file",
    "replace_in_file",
    "list_folders",
    "create_folder",
    "delete_folder",
    "rename_folder",
    "move_folder",
)
KNOWLEDGE_TOOLS = ("search_knowledge", "browse_container", "extract_container_item")
WEB_TOOLS = ("read_url", "web_search")
# Tools that overwrite or remove what was there; the other writers only add or re-label.
DESTRUCTIVE = frozenset({"write_file", "delete_file", "replace_in_file", "delete_folder"})


def exposed_tools(registry: ToolRegistry, context: RequestContext, *, web: bool) -> dict[str, Tool]:
    """The caller's tools by name: writers only for roles that may write."""
    names = WORKSPACE_TOOLS + KNOWLEDGE_TOOLS + (WEB_TOOLS if web else ())
    found = (registry.get(name) for name in names)
    return {
        tool.name: tool
        for tool in found
        if tool is not None and (tool.read_only or context.can_write)
    }


def mcp_tool(tool: Tool) -> types.Tool:
    return types.Tool(
        name=tool.name,
        description=tool.description,
        input_schema=model_schema(tool.json_schema()),
        annotations=types.ToolAnnotations(
            read_only_hint=tool.read_only,
            destructive_hint=not tool.read_only and tool.name in DESTRUCTIVE,
            open_world_hint=tool.name in WEB_TOOLS,
        ),
    )
