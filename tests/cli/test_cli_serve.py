"""`agentur serve` as a person runs it: first start bootstraps, the second keeps everything.

One run on the embedded SQLite default, one on PostgreSQL (when that backend is configured).
"""

from __future__ import annotations

import asyncio
import stat
import uuid
from pathlib import Path

import httpx
import pytest
from sqlalchemy.engine import make_url

from tests.cli.cli_helpers import cli_env, serving
from tests.conftest import BACKENDS, _admin_execute

NOTES = "Notizen für Zürich: Grüße 😀 und 日本語.\n" * 20


def _serve_twice(tmp_path: Path, database_url: str | None) -> None:
    data_dir = tmp_path / ".agentur"
    env = cli_env(data_dir, database_url)
    key_path = data_dir / "admin.key"

    with serving(tmp_path, env, "first") as server:
        key = key_path.read_text().strip()
        assert stat.S_IMODE(key_path.stat().st_mode) == 0o600
        headers = {"Authorization": f"Bearer {key}"}
        # What the README's curl line does: a multipart upload, then a windowed read.
        uploaded = httpx.post(
            f"{server.base_url}/v1/files",
            headers=headers,
            files={"file": ("notes.txt", NOTES.encode())},
            timeout=30,
        )
        assert uploaded.status_code == 201, uploaded.text
        file_id = uploaded.json()["id"]
        window = httpx.get(
            f"{server.base_url}/v1/files/{file_id}/content",
            params={"offset": 10, "limit": 25},
            headers=headers,
            timeout=30,
        ).json()
        assert window["content"] == NOTES[10:35]
        assert window["total_length"] == len(NOTES)
        unauthorized = httpx.get(f"{server.base_url}/v1/files", timeout=30)
        assert unauthorized.status_code == 401
    first_output = server.output.read_text()
    assert first_output.count(key) == 1, first_output
    key_file = key_path.read_bytes()
    key_mtime = key_path.stat().st_mtime_ns

    with serving(tmp_path, env, "second") as server:
        listing = httpx.get(f"{server.base_url}/v1/files", headers=headers, timeout=30)
        assert listing.status_code == 200
        assert [item["id"] for item in listing.json()["items"]] == [file_id]
        download = httpx.get(
            f"{server.base_url}/v1/files/{file_id}/download", headers=headers, timeout=30
        )
        assert download.content == NOTES.encode()
    second_output = server.output.read_text()
    assert "agt_" not in second_output, second_output
    assert str(key_path) in second_output
    assert key_path.read_bytes() == key_file and key_path.stat().st_mtime_ns == key_mtime


@pytest.mark.slow  # real `agentur serve` processes, started twice
def test_serve_on_sqlite_bootstraps_once_and_keeps_data(tmp_path: Path) -> None:
    _serve_twice(tmp_path, None)
    assert (tmp_path / ".agentur" / "agentur.db").is_file()
    assert any((tmp_path / ".agentur" / "blobs").rglob("*"))


@pytest.mark.skipif("postgresql" not in BACKENDS, reason="PostgreSQL backend not configured")
@pytest.mark.slow  # real `agentur serve` processes, started twice
def test_serve_on_postgresql_bootstraps_once_and_keeps_data(
    tmp_path: Path, postgres_admin_url: str
) -> None:
    name = f"serve_{uuid.uuid4().hex[:12]}"
    asyncio.run(_admin_execute(postgres_admin_url, f"CREATE DATABASE {name}"))
    url = make_url(postgres_admin_url).set(database=name).render_as_string(False)
    try:
        _serve_twice(tmp_path, url)
        assert not (tmp_path / ".agentur" / "agentur.db").exists()
    finally:
        asyncio.run(
            _admin_execute(postgres_admin_url, f"DROP DATABASE IF EXISTS {name} WITH (FORCE)")
        )
