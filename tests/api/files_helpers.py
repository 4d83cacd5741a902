"""Small helpers the workspace API tests share: upload a file, count rows and blobs."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import httpx
from sqlalchemy import func, select

from agentur.runtime import Runtime
from agentur.storage.models import File
from tests.conftest import Member

PROBLEM_JSON = "application/problem+json"


async def upload(
    client: httpx.AsyncClient,
    member: Member,
    filename: str,
    content: bytes | str = b"hello",
    *,
    headers: dict[str, str] | None = None,
    mime_type: str | None = None,
    **form: Any,
) -> httpx.Response:
    data = content.encode() if isinstance(content, str) else content
    part = (filename, data, mime_type) if mime_type else (filename, data)
    return await client.post(
        "/v1/files",
        headers={**member.headers, **(headers or {})},
        files={"file": part},
        data={key: value for key, value in form.items() if value is not None},
    )


async def upload_ok(
    client: httpx.AsyncClient,
    member: Member,
    filename: str,
    content: bytes | str = b"hello",
    **form: Any,
) -> dict[str, Any]:
    response = await upload(client, member, filename, content, **form)
    assert response.status_code == 201, response.text
    return response.json()


def assert_problem(response: httpx.Response, status: int, *detail_parts: str) -> dict[str, Any]:
    """The response is problem+json with `status` and a detail naming each of `detail_parts`."""
    assert response.status_code == status, response.text
    assert response.headers["content-type"].startswith(PROBLEM_JSON)
    body = response.json()
    assert body["status"] == status
    assert body["detail"]
    for part in detail_parts:
        assert part in body["detail"], body["detail"]
    return body


async def file_count(runtime: Runtime) -> int:
    async with runtime.database.session() as session:
        return int(await session.scalar(select(func.count()).select_from(File)) or 0)


def stored_blobs(runtime: Runtime) -> list[Path]:
    """Every file under the blob dir, including leftovers in `incoming/`."""
    root = runtime.settings.blob_dir
    return sorted(path for path in root.rglob("*") if path.is_file()) if root.exists() else []
