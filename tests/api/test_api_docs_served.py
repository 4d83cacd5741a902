"""/docs as served: a page with its own CSP whose scripts and styles all come from this server
(the browser test in tests/web renders it offline), and nothing beyond the listed files."""

from __future__ import annotations

import re

import httpx
import pytest


async def test_docs_page_loads_only_files_of_this_server(client: httpx.AsyncClient) -> None:
    response = await client.get("/docs")
    assert response.status_code == 200
    policy = response.headers["content-security-policy"]
    for directive in ("default-src 'none'", "script-src 'self'", "connect-src 'self'"):
        assert directive in policy
    assert "unsafe-inline" not in policy and "frame-ancestors 'none'" in policy
    references = re.findall(r'(?:src|href)="([^"]+)"', response.text)
    assert len(references) == 4 and all(ref.startswith("docs/assets/") for ref in references)
    assert "<script>" not in response.text  # no inline script: the CSP would refuse it
    for reference in references:
        asset = await client.get("/" + reference)
        assert asset.status_code == 200, reference
        assert asset.headers["content-security-policy"] == policy
    bundle = await client.get("/docs/assets/swagger-ui-bundle.js")
    assert bundle.headers["content-type"].startswith("text/javascript")
    assert "SwaggerUIBundle" in bundle.text


@pytest.mark.parametrize(
    "path", ["/docs/assets/redoc.standalone.js", "/docs/assets/..%2fcore.py", "/redoc"]
)
async def test_nothing_else_is_served(client: httpx.AsyncClient, path: str) -> None:
    assert (await client.get(path)).status_code == 404
