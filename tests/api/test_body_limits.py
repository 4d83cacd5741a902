"""Request body limits on every route, enforced before the body is read.

`ReadCounter` sits between the client and the app and counts the body bytes the app pulls: a
body refused from its `Content-Length` is never pulled at all (so never parsed), a chunked one
only up to the limit. (The real server closing the connection on a declared 200 MB body:
tests/api/test_served.py.)"""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from fastapi import FastAPI

from agentur.config import Settings
from tests.conftest import Tenants

SIGN_IN_LIMIT = 16 * 1024  # the default
MAX_BODY = 8 * 1024
MAX_MODEL_BODY = 64 * 1024
CHUNK = 64 * 1024


class ReadCounter:
    def __init__(self, app: Any) -> None:
        self.app = app
        self.pulled = 0

    def __getattr__(self, name: str) -> Any:
        return getattr(self.app, name)

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        async def counted() -> dict[str, Any]:
            message = await receive()
            self.pulled += len(message.get("body", b""))
            return message

        await self.app(scope, counted, send)


@pytest.fixture
def settings(tmp_path: Path, database_url: str) -> Settings:
    return Settings(
        data_dir=tmp_path / "data",
        database_url=database_url,
        max_body_bytes=MAX_BODY,
        max_model_body_bytes=MAX_MODEL_BODY,
    )


@pytest.fixture
async def counted(app: FastAPI) -> AsyncIterator[tuple[httpx.AsyncClient, ReadCounter]]:
    counter = ReadCounter(app)
    transport = httpx.ASGITransport(app=counter)
    async with httpx.AsyncClient(transport=transport, base_url="http://agentur.test") as client:
        yield client, counter


def huge_sign_in(megabytes: int) -> bytes:
    return json.dumps({"api_key": "agt_x_" + "k" * (megabytes * 1024 * 1024)}).encode()


async def chunks(data: bytes) -> AsyncIterator[bytes]:
    for start in range(0, len(data), CHUNK):
        yield data[start : start + CHUNK]


def assert_too_large(response: httpx.Response, setting: str, limit: int) -> None:
    assert response.status_code == 413, response.text
    assert response.headers["content-type"] == "application/problem+json"
    assert response.json()["detail"] == (
        f"the request body is larger than {limit} bytes ({setting})"
    )


async def test_a_20_mb_sign_in_body_is_refused_unread(
    counted: tuple[httpx.AsyncClient, ReadCounter],
) -> None:
    client, counter = counted
    body = huge_sign_in(20)
    declared = await client.post(
        "/v1/sessions", content=body, headers={"Content-Type": "application/json"}
    )
    assert_too_large(declared, "AGENTUR_MAX_SIGN_IN_BODY_BYTES", SIGN_IN_LIMIT)
    assert declared.headers["connection"] == "close"  # the server reads none of the rest
    assert counter.pulled == 0

    streamed = await client.post(
        "/v1/sessions", content=chunks(body), headers={"Content-Type": "application/json"}
    )
    assert_too_large(streamed, "AGENTUR_MAX_SIGN_IN_BODY_BYTES", SIGN_IN_LIMIT)
    assert counter.pulled <= SIGN_IN_LIMIT + CHUNK  # one chunk past the limit, not 20 MB


async def test_bodies_within_their_limit_are_served(
    counted: tuple[httpx.AsyncClient, ReadCounter], tenants: Tenants
) -> None:
    client, _ = counted
    alice = await tenants.member()
    signed = await client.post("/v1/sessions", json={"api_key": alice.key})
    assert signed.status_code == 201, signed.text
    # A chunked body within its limit arrives whole.
    body = json.dumps({"name": "n" * 100}).encode()
    folder = await client.post(
        "/v1/folders",
        content=chunks(body),
        headers={**alice.headers, "Content-Type": "application/json"},
    )
    assert folder.status_code == 201, folder.text


async def test_json_routes_and_the_openai_routes_have_their_limits(
    client: httpx.AsyncClient, tenants: Tenants
) -> None:
    alice = await tenants.member()
    prompt = {"prompt": "p" * MAX_BODY}
    run = await client.post("/v1/agent/runs", json=prompt, headers=alice.headers)
    assert_too_large(run, "AGENTUR_MAX_BODY_BYTES", MAX_BODY)
    # Unknown paths too: every route has a limit.
    unknown = await client.post("/v1/nowhere", content=b"x" * (MAX_BODY + 1))
    assert_too_large(unknown, "AGENTUR_MAX_BODY_BYTES", MAX_BODY)

    messages = [{"role": "user", "content": "m" * MAX_MODEL_BODY}]
    chat = await client.post(
        "/openai/v1/chat/completions",
        json={"model": "agentur-agent", "messages": messages},
        headers=alice.headers,
    )
    assert chat.status_code == 413
    error = chat.json()["error"]
    assert error["type"] == "invalid_request_error" and error["code"] == "request_too_large"
    assert "AGENTUR_MAX_MODEL_BODY_BYTES" in error["message"]


async def test_the_openapi_document_states_each_operations_body_limit(
    client: httpx.AsyncClient,
) -> None:
    document = (await client.get("/openapi.json")).json()
    sign_in = document["paths"]["/v1/sessions"]["post"]["responses"]["413"]["description"]
    assert f"larger than {SIGN_IN_LIMIT} bytes (AGENTUR_MAX_SIGN_IN_BODY_BYTES)" in sign_in
    runs = document["paths"]["/v1/agent/runs"]["post"]["responses"]["413"]["description"]
    assert f"larger than {MAX_BODY} bytes (AGENTUR_MAX_BODY_BYTES)" in runs
    upload = document["paths"]["/v1/files"]["post"]["responses"]["413"]["description"]
    assert "AGENTUR_MAX_UPLOAD_BYTES" in upload
    assert "413" not in document["paths"]["/v1/files"]["get"]["responses"]  # no body
    for path, operations in document["paths"].items():
        for method, operation in operations.items():
            answers = operation["responses"]
            assert "Retry-After" in answers["503"]["headers"], f"{method} {path}"
            if "429" in answers:
                assert "Retry-After" in answers["429"]["headers"], f"{method} {path}"
