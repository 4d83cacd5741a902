"""The content-addressed blob store: whole or absent, stored once, nothing left behind."""

from __future__ import annotations

import hashlib
from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from agentur.errors import TooLargeError
from agentur.storage.blob_store import BlobStore


async def _chunks(*parts: bytes) -> AsyncIterator[bytes]:
    for part in parts:
        yield part


def _files(root: Path) -> list[Path]:
    return [path for path in root.rglob("*") if path.is_file()]


async def test_streams_are_stored_once_under_their_hash(tmp_path: Path) -> None:
    store = BlobStore(tmp_path / "blobs", grace_seconds=0)
    data = "Grüße 😀".encode()
    first = await store.put_stream(_chunks(data[:3], data[3:]), max_bytes=100)
    second = store.put_bytes(data)
    assert (first.sha256, first.size) == (second.sha256, second.size)
    assert first.sha256 == hashlib.sha256(data).hexdigest() and first.size == len(data)
    assert store.read_bytes(first.sha256) == data
    assert b"".join(store.iter_bytes(first.sha256)) == data
    assert _files(tmp_path) == [store.path_for(first.sha256)]
    assert store.release(first.sha256) is True
    assert store.release(first.sha256) is False  # releasing twice is harmless
    assert _files(tmp_path) == [] and not store.exists(first.sha256)


async def test_too_large_stream_leaves_nothing(tmp_path: Path) -> None:
    store = BlobStore(tmp_path / "blobs")
    with pytest.raises(TooLargeError, match="10 bytes"):
        await store.put_stream(_chunks(b"123456", b"78901"), max_bytes=10)
    assert _files(tmp_path) == []
    exact = await store.put_stream(_chunks(b"12345", b"67890"), max_bytes=10)
    assert exact.size == 10


@pytest.mark.parametrize("bad", ["../../etc/passwd", "g" * 64, "0" * 63, "A" * 64, ""])
def test_only_hex_digests_address_blobs(tmp_path: Path, bad: str) -> None:
    with pytest.raises(ValueError):
        BlobStore(tmp_path).path_for(bad)
