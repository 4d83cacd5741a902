"""What the OpenAPI document promises: the bearer scheme, problem+json for every error,
every path parameter declared, the limits the server is configured with; `Allow` on 405."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import httpx
import pytest

from agentur.api.app import create_app
from agentur.config import Settings
from agentur.runtime import Runtime
from tests.api.files_helpers import PROBLEM_JSON, assert_problem
from tests.conftest import Tenants

METHODS = {"get", "put", "post", "delete", "patch", "options"}


async def _document(client: httpx.AsyncClient) -> dict[str, Any]:
    response = await client.get("/openapi.json")
    assert response.status_code == 200
    return response.json()


def _operations(document: dict[str, Any]) -> list[tuple[str, str, dict[str, Any]]]:
    return [
        (path, method, operation)
        for path, item in document["paths"].items()
        for method, operation in item.items()
        if method in METHODS
    ]


async def test_bearer_scheme_and_security_per_operation(client: httpx.AsyncClient) -> None:
    document = await _document(client)
    schemes = document["components"]["securitySchemes"]
    assert [scheme["scheme"] for scheme in schemes.values()] == ["bearer"]
    secured = {(p, m) for p, m, op in _operations(document) if op.get("security")}
    assert ("/v1/files", "get") in secured
    assert ("/v1/assistants/{assistant_id}/conversations", "post") in secured
    assert ("/healthz", "get") not in secured
    for path, method, operation in _operations(document):
        if operation.get("security"):
            assert "401" in operation["responses"], (method, path)


async def test_context_headers_are_listed_once_where_a_request_context_reads_them(
    client: httpx.AsyncClient,
) -> None:
    """`get_request_context` reads them from the request (cheaper than declared parameters);
    the document still lists each once on every operation that has a request context."""
    document = await _document(client)
    context_headers = [
        "x-feature-instance",
        "x-user-timezone",
        "x-require-neutralization",
        "accept-language",
    ]

    def headers(path: str, method: str) -> list[str]:
        parameters = document["paths"][path][method].get("parameters", [])
        return [p["name"] for p in parameters if p["in"] == "header"]

    assert headers("/v1/files", "get") == context_headers
    assert headers("/v1/files/{file_id}", "delete") == context_headers
    # A visitor's conversation authenticates differently and declares its own headers.
    visitor = headers("/v1/assistants/{assistant_id}/conversations", "post")
    assert "x-feature-instance" not in visitor
    assert len(visitor) == len(set(visitor))
    assert headers("/healthz", "get") == []


async def test_every_error_is_documented_as_problem_json(client: httpx.AsyncClient) -> None:
    document = await _document(client)
    assert document["components"]["schemas"]["Problem"]["required"] == [
        "title",
        "status",
        "detail",
    ]
    for path, method, operation in _operations(document):
        for status, response in operation["responses"].items():
            content = response.get("content", {})
            if status.startswith("4"):
                assert list(content) == [PROBLEM_JSON], (method, path, status)
                assert content[PROBLEM_JSON]["schema"] == {"$ref": "#/components/schemas/Problem"}
        assert "HTTPValidationError" not in str(operation), (method, path)


async def test_every_path_parameter_is_declared(client: httpx.AsyncClient) -> None:
    document = await _document(client)
    for path, method, operation in _operations(document):
        declared = {p["name"] for p in operation.get("parameters", []) if p["in"] == "path"}
        assert declared == set(re.findall(r"\{(\w+)\}", path)), (method, path)


async def test_document_states_the_configured_limits(tmp_path: Path, database_url: str) -> None:
    settings = Settings(data_dir=tmp_path / "data", database_url=database_url, max_name_length=40)
    runtime = Runtime.from_settings(settings)
    try:
        transport = httpx.ASGITransport(app=create_app(runtime=runtime))
        async with httpx.AsyncClient(transport=transport, base_url="http://t") as client:
            document = await _document(client)
    finally:
        await runtime.close()
    schemas = document["components"]["schemas"]
    assert schemas["FolderCreate"]["properties"]["name"]["maxLength"] == 40
    assert "x-agentur-limit" not in str(document)
    search_limit = schemas["SearchIn"]["properties"]["limit"]
    assert search_limit["maximum"] == 50  # AGENTUR_KNOWLEDGE_MAX_SEARCH_LIMIT's default
    content = document["paths"]["/v1/files/{file_id}/content"]["get"]["parameters"]
    limit = next(p for p in content if p["name"] == "limit")["schema"]["anyOf"][0]
    assert limit["maximum"] == settings.max_read_window


@pytest.mark.parametrize("method", ["PUT", "TRACE"])
async def test_405_lists_every_method_of_the_path(
    client: httpx.AsyncClient, tenants: Tenants, method: str
) -> None:
    alice = await tenants.member()
    response = await client.request(method, "/v1/files", headers=alice.headers)
    assert_problem(response, 405)
    assert response.headers["allow"] == "GET, POST"
    one = await client.request(method, "/v1/folders/f-1", headers=alice.headers)
    assert one.headers["allow"] == "DELETE, PATCH"
