"""OAuth discovery for `/mcp` (the MCP authorization spec, RFC 9728 Protected Resource
Metadata): where an MCP host that speaks only OAuth finds the authorization server to get a
token from, and the `WWW-Authenticate` challenge of a 401 that points there.

Served only when `AGENTUR_MCP_AUTHORIZATION_SERVERS` names one: without an authorization
server there is nothing to discover, and the metadata would have to name one. The bearer
token `/mcp` accepts stays an agentur API key — the configured server must issue those."""

from __future__ import annotations

from collections.abc import Callable

from mcp.server.auth.routes import build_resource_metadata_url
from mcp.shared.auth import ProtectedResourceMetadata
from pydantic import AnyHttpUrl
from starlette.requests import Request
from starlette.responses import JSONResponse, Response

from agentur import __version__
from agentur.api.mcp.settings import McpServerSettings
from agentur.api.problems import problem

WELL_KNOWN = "/.well-known/oauth-protected-resource"
CACHE_SECONDS = 3600


def resource_url(request: Request, settings: McpServerSettings, mcp_path: str) -> str:
    """This server's `/mcp` as clients address it: the configured URL, else as requested."""
    if settings.mcp_resource_url:
        return settings.mcp_resource_url
    return str(request.base_url).rstrip("/") + mcp_path


def metadata_url(resource: str) -> str:
    return str(build_resource_metadata_url(AnyHttpUrl(resource)))


def challenge(request: Request, settings: McpServerSettings, mcp_path: str, sent: bool) -> str:
    """The `WWW-Authenticate` value of a 401 from `/mcp` (RFC 6750, RFC 9728 §5.1)."""
    parts = ["Bearer"]
    if settings.authorization_servers:
        url = metadata_url(resource_url(request, settings, mcp_path))
        parts.append(f'resource_metadata="{url}"')
    if sent:
        parts.append('error="invalid_token"')
    return parts[0] + (" " + ", ".join(parts[1:]) if len(parts) > 1 else "")


def metadata_endpoint(  # noqa: ANN201 - endpoint
    settings_of: Callable[[], McpServerSettings], mcp_path: str
):
    async def protected_resource(request: Request) -> Response:
        settings = settings_of()
        if not settings.authorization_servers:
            return problem(
                404,
                "Not Found",
                "no OAuth authorization server is configured for /mcp "
                "(AGENTUR_MCP_AUTHORIZATION_SERVERS); send an API key as bearer token",
            )
        metadata = ProtectedResourceMetadata(
            resource=AnyHttpUrl(resource_url(request, settings, mcp_path)),
            authorization_servers=[AnyHttpUrl(url) for url in settings.authorization_servers],
            bearer_methods_supported=["header"],
            resource_name=f"agentur {__version__}",
        )
        return JSONResponse(
            metadata.model_dump(mode="json", exclude_none=True),
            headers={
                "Cache-Control": f"public, max-age={CACHE_SECONDS}",
                # Public by design; browser-based MCP hosts read it cross-origin.
                "Access-Control-Allow-Origin": "*",
            },
        )

    return protected_resource
