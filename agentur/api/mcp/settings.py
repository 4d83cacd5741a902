"""Settings of the MCP server at `/mcp`."""

from __future__ import annotations

from pydantic import Field

from agentur.config import PartSettings


class McpServerSettings(PartSettings):
    mcp_web_tools: bool = Field(
        default=False,
        description="Offer `read_url` and `web_search` to MCP clients: they fetch from the "
        "internet on this server's behalf (egress-checked), so a deployment opts in.",
    )
    mcp_max_resources: int = Field(
        default=500, ge=1, le=10_000, description="Most knowledge files one resource list names."
    )
