"""An MCP server over streamable HTTP; an optional bearer token is the secret. Its tools are
the server's own, loaded per caller when the toolbox is activated (agentur/tools/mcp_tools.py)."""

from __future__ import annotations

from pydantic import Field

from agentur.connections.connection_kind import ConnectionKind, KindToolbox
from agentur.connections.kinds import MAX_URL_CHARS, ConnectionSettingsModel, EgressUrl
from agentur.connections.mcp_client import McpAccess, check
from agentur.egress.parse_url import Target, parse_url


class McpSettings(ConnectionSettingsModel):
    """An MCP server over streamable HTTP; an optional bearer token is the password."""

    url: EgressUrl = Field(
        min_length=8, max_length=MAX_URL_CHARS, description="The server's MCP endpoint."
    )

    def targets(self) -> list[tuple[str, Target]]:
        return [("url", parse_url(self.url))]


def access(settings: McpSettings, secret: str, timeout: float, max_bytes: int) -> McpAccess:
    return McpAccess(settings.url, secret, timeout)


KIND = ConnectionKind(
    "mcp",
    McpSettings,
    access,
    check,
    KindToolbox("mcp", "Tools of your connected MCP servers.", after="code"),
)
