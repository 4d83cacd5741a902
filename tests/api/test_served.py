"""What only a running `agentur serve` shows: its HTTP parser's errors, a body refused before
it is sent, its start-up log and the modes of everything it keeps in its data dir."""

from __future__ import annotations

import json
import os
import socket
import stat
from pathlib import Path

import httpx
import pytest

from agentur.storage.private_files import secure_data_dir
from tests.api.serve_process import Served, serve


def _raw_request(served: Served, request: bytes) -> bytes:
    with socket.create_connection(("127.0.0.1", served.port), timeout=10) as connection:
        connection.sendall(request)
        chunks = []
        while chunk := connection.recv(65536):
            chunks.append(chunk)
    return b"".join(chunks)


def _modes(root: Path) -> dict[str, int]:
    return {
        str(path.relative_to(root.parent)): stat.S_IMODE(path.lstat().st_mode)
        for path in [root, *root.rglob("*")]
    }


@pytest.mark.slow  # a real `agentur serve` process
def test_served_server_keeps_its_promises(tmp_path: Path) -> None:
    with serve(tmp_path / "data") as served:
        # A NUL byte in a header never reaches the app: the parser's 400 is problem+json too.
        answer = _raw_request(served, b"GET /healthz HTTP/1.1\r\nHost: x\r\nX-Bad: a\x00b\r\n\r\n")
        head, _, body = answer.partition(b"\r\n\r\n")
        assert head.startswith(b"HTTP/1.1 400 ")
        assert b"content-type: application/problem+json" in head.lower()
        problem = json.loads(body)
        assert problem["status"] == 400 and "malformed HTTP request" in problem["detail"]

        # An unauthenticated 200 MB sign-in: refused from its Content-Length before a byte of
        # the body is sent (the server does not wait for it), and the connection is closed.
        answer = _raw_request(
            served,
            b"POST /v1/sessions HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
            b"Content-Length: 209715200\r\n\r\n",
        )
        head, _, body = answer.partition(b"\r\n\r\n")
        assert head.startswith(b"HTTP/1.1 413 "), answer
        assert b"connection: close" in head.lower()
        assert "AGENTUR_MAX_SIGN_IN_BODY_BYTES" in json.loads(body)["detail"]

        # Everything under the data dir is private, the live SQLite -wal/-shm files included.
        key = (served.data_dir / "admin.key").read_text().strip()
        uploaded = httpx.post(
            f"{served.url}/v1/files",
            headers={"Authorization": f"Bearer {key}"},
            files={"file": ("notes.txt", b"private words")},
        )
        assert uploaded.status_code == 201, uploaded.text
        modes = _modes(served.data_dir)
        assert {"data/agentur.db-wal", "data/agentur.db-shm"} <= modes.keys()
        assert any(name.startswith("data/blobs/") for name in modes)
        loose = {
            name: oct(mode)
            for name, mode in modes.items()
            if mode != (0o700 if (served.data_dir.parent / name).is_dir() else 0o600)
        }
        assert loose == {}
    first_start = served.output()
    # Migrations run (and alembic logs) once per start, not once more in the app's lifespan.
    assert first_start.count("Context impl") == 1, first_start
    with serve(tmp_path / "data") as served_again:
        pass
    assert served_again.output().count("Context impl") == 1, served_again.output()


def test_a_loose_data_dir_from_an_older_version_is_tightened(tmp_path: Path) -> None:
    data_dir = tmp_path / "data"
    (data_dir / "blobs" / "ab").mkdir(parents=True)
    (data_dir / "blobs" / "ab" / "blob").write_bytes(b"x")
    (data_dir / "agentur.db").write_bytes(b"")
    (data_dir / "agentur.db-wal").write_bytes(b"")
    for path in [data_dir, data_dir / "blobs", data_dir / "blobs" / "ab"]:
        os.chmod(path, 0o755)
    for path in [data_dir / "blobs" / "ab" / "blob", data_dir / "agentur.db"]:
        os.chmod(path, 0o644)
    secure_data_dir(data_dir, f"sqlite+aiosqlite:///{data_dir / 'agentur.db'}")
    modes = _modes(data_dir)
    assert modes == {
        "data": 0o700,
        "data/blobs": 0o700,
        "data/blobs/ab": 0o700,
        "data/blobs/ab/blob": 0o600,
        "data/agentur.db": 0o600,
        "data/agentur.db-wal": 0o600,
    }
