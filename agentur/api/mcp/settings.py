"""Settings of the MCP server at `/mcp`."""

from __future__ import annotations

from urllib.parse import urlsplit

from pydantic import Field, field_validator

from agentur.config import PartSettings, count


class McpServerSettings(PartSettings):
    mcp_web_tools: bool = Field(
        default=False,
        description="Offer `read_url` and `web_search` to MCP clients: they fetch from the "
        "internet on this server's behalf (egress-checked), so a deployment opts in.",
    )
    mcp_max_resources: int = count(
        500, "Most knowledge files one resource list names.", most=10_000
    )
    mcp_authorization_servers: str = Field(
        default="",
        description="Comma-separated issuer URLs of OAuth authorization servers for /mcp, "
        "published as protected-resource metadata (RFC 9728) and in the 401 challenge; the "
        "tokens they issue must be agentur API keys. Empty: no OAuth discovery.",
    )
    mcp_resource_url: str = Field(
        default="",
        description="The public URL of /mcp (`https://agentur.example.com/mcp`) named in the "
        "metadata; empty: the URL as the request reached the server.",
    )

    @field_validator("mcp_authorization_servers", "mcp_resource_url")
    @classmethod
    def _urls(cls, value: str) -> str:
        for url in _split(value):
            parts = urlsplit(url)
            if parts.scheme not in ("http", "https") or not parts.netloc:
                raise ValueError(f"{url!r} is not an http(s) URL")
        return value

    @property
    def authorization_servers(self) -> list[str]:
        return _split(self.mcp_authorization_servers)


def _split(value: str) -> list[str]:
    return [url.strip() for url in value.split(",") if url.strip()]
