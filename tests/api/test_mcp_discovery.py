"""`/mcp` bounded and discoverable: a GET answers 405 at once instead of holding an empty
event stream open, and with an authorization server configured an OAuth-only MCP host finds it
the way the `mcp` SDK's client looks (401 challenge → protected-resource metadata, RFC 9728)
— while API keys keep working."""

from __future__ import annotations

import httpx
import httpx2
import pytest
from mcp.client.auth.utils import (
    build_protected_resource_metadata_discovery_urls,
    extract_resource_metadata_from_www_auth,
    handle_protected_resource_response,
)

from agentur.api.app import create_app
from agentur.runtime import Runtime
from tests.api.live_server import live_server
from tests.api.test_mcp_server import mcp_client
from tests.conftest import Tenants
from tests.reread_settings import reread_settings

ISSUER = "https://login.example.com/realms/agentur"
LIST_TOOLS = {"jsonrpc": "2.0", "id": 1, "method": "tools/list"}


async def test_a_get_on_mcp_answers_405_at_once(runtime: Runtime, tenants: Tenants) -> None:
    alice = await tenants.member()
    async with live_server(create_app(runtime=runtime)) as base_url:
        # A client timeout far below "forever": the old empty stream never ended.
        async with httpx.AsyncClient(timeout=10) as http:
            stream = await http.get(
                f"{base_url}/mcp", headers={"Accept": "text/event-stream", **alice.headers}
            )
            ended = await http.delete(f"{base_url}/mcp", headers=alice.headers)
        async with mcp_client(base_url, alice) as client:  # the SDK's client copes with it
            tools = (await client.list_tools()).tools

    assert stream.status_code == 405 and stream.headers["allow"] == "POST"
    assert stream.headers["content-type"] == "application/problem+json"
    assert ended.status_code == 405
    assert "read_file" in {tool.name for tool in tools}


async def test_without_an_authorization_server_there_is_nothing_to_discover(
    runtime: Runtime,
) -> None:
    async with (
        live_server(create_app(runtime=runtime)) as base_url,
        httpx.AsyncClient() as http,
    ):
        refused = await http.post(f"{base_url}/mcp", json=LIST_TOOLS)
        metadata = await http.get(f"{base_url}/.well-known/oauth-protected-resource/mcp")

    assert refused.status_code == 401 and refused.headers["www-authenticate"] == "Bearer"
    assert metadata.status_code == 404
    assert "AGENTUR_MCP_AUTHORIZATION_SERVERS" in metadata.json()["detail"]


async def test_an_oauth_client_discovers_the_authorization_server_and_keys_still_work(
    runtime: Runtime, tenants: Tenants, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("AGENTUR_MCP_AUTHORIZATION_SERVERS", ISSUER)
    reread_settings(runtime)
    alice = await tenants.member()
    async with (
        live_server(create_app(runtime=runtime)) as base_url,
        httpx2.AsyncClient() as http,
    ):
        server_url = f"{base_url}/mcp"
        challenged = await http.post(server_url, json=LIST_TOOLS)
        wrong_key = await http.post(
            server_url, json=LIST_TOOLS, headers={"Authorization": "Bearer agentur_nope"}
        )
        # What the SDK's OAuth client does next: every discovery URL it would try.
        pointed_at = extract_resource_metadata_from_www_auth(challenged)
        found = []
        for url in build_protected_resource_metadata_discovery_urls(pointed_at, server_url):
            found.append(await handle_protected_resource_response(await http.get(url)))
        async with mcp_client(base_url, alice) as client:
            tools = (await client.list_tools()).tools

    assert challenged.status_code == 401
    assert pointed_at == f"{base_url}/.well-known/oauth-protected-resource/mcp"
    assert 'error="invalid_token"' in wrong_key.headers["www-authenticate"]
    assert len(found) == 3  # the header's URL, the path-suffixed and the root well-known
    for metadata in found:
        assert metadata is not None
        assert str(metadata.resource) == server_url
        assert [str(url) for url in metadata.authorization_servers] == [ISSUER]
        assert metadata.bearer_methods_supported == ["header"]
    assert "read_file" in {tool.name for tool in tools}
