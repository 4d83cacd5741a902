"""The MCP server at /mcp, driven by the official `mcp` client over streamable HTTP against a
real uvicorn on 127.0.0.1: tools and resources are the key holder's, calls go through the
lifecycle wrapper, and nothing of another tenant shows."""

from __future__ import annotations

import base64
import json

import httpx
import httpx2
import pytest
from mcp import Client
from mcp.client.streamable_http import streamable_http_client
from mcp.shared.exceptions import MCPError

from agentur.api.app import create_app
from agentur.context import Role
from agentur.runtime import Runtime
from tests.api.live_server import live_server
from tests.conftest import Member, Tenants

PNG_BYTES = b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR\x00\xff\xfe"


def mcp_client(base_url: str, member: Member) -> Client:
    http = httpx2.AsyncClient(headers=member.headers, timeout=30)
    return Client(streamable_http_client(f"{base_url}/mcp", http_client=http))


async def test_the_mcp_client_lists_and_calls_tools_and_reads_resources_of_its_tenant(
    runtime: Runtime, tenants: Tenants
) -> None:
    alice = await tenants.member("acme")
    mallory = await tenants.member("umbrella")
    viewer = await tenants.member("acme", Role.viewer)
    async with live_server(create_app(runtime=runtime)) as base_url:
        async with mcp_client(base_url, alice) as client:
            tools = {tool.name: tool for tool in (await client.list_tools()).tools}
            assert {"read_file", "write_file", "search_knowledge"} <= set(tools)
            assert "request_toolbox" not in tools and "send_mail" not in tools
            assert tools["read_file"].annotations.read_only_hint is True
            assert tools["delete_file"].annotations.destructive_hint is True
            assert tools["create_folder"].annotations.destructive_hint is False
            written = await client.call_tool(
                "write_file", {"name": "plan.md", "content": "# Plan\nship MCP"}
            )
            assert not written.is_error, written.content
            file_id = json.loads(written.content[0].text)["file_id"]
            invalid = await client.call_tool("write_file", {"content": "no name"})
            assert invalid.is_error and "needs a name" in invalid.content[0].text
            async with httpx.AsyncClient(base_url=base_url, headers=alice.headers) as http:
                uploaded = await http.post(
                    "/v1/files", files={"file": ("logo.png", PNG_BYTES, "image/png")}
                )
            assert uploaded.status_code == 201, uploaded.text
            resources = {r.name: str(r.uri) for r in (await client.list_resources()).resources}
            assert sorted(resources) == ["logo.png", "plan.md"]
            read = await client.read_resource(resources["plan.md"])
            assert read.contents[0].text == "# Plan\nship MCP"
            [image] = (await client.read_resource(resources["logo.png"])).contents
            assert base64.b64decode(image.blob) == PNG_BYTES and image.mime_type == "image/png"

        async with mcp_client(base_url, mallory) as client:
            assert (await client.list_resources()).resources == []
            listed = await client.call_tool("list_files", {})
            assert "plan.md" not in listed.content[0].text
            stolen = await client.call_tool("read_file", {"file_id": file_id})
            assert stolen.is_error and "not found" in stolen.content[0].text
            with pytest.raises(MCPError):
                await client.read_resource(f"agentur://files/{file_id}")

        async with mcp_client(base_url, viewer) as client:
            names = {tool.name for tool in (await client.list_tools()).tools}
            assert "read_file" in names and "write_file" not in names
            refused = await client.call_tool("write_file", {"name": "x.md", "content": "x"})
            assert refused.is_error and "no tool 'write_file'" in refused.content[0].text

        async with httpx.AsyncClient() as http:
            anonymous = await http.post(
                f"{base_url}/mcp", json={"jsonrpc": "2.0", "id": 1, "method": "tools/list"}
            )
            wrong = await http.post(
                f"{base_url}/mcp",
                json={"jsonrpc": "2.0", "id": 1, "method": "tools/list"},
                headers={"Authorization": "Bearer agentur_nope_nope"},
            )
    assert anonymous.status_code == 401 and "Bearer" in anonymous.json()["detail"]
    assert wrong.status_code == 401
    assert wrong.headers["www-authenticate"] == 'Bearer error="invalid_token"'
