"""Releasing bytes never loses what a concurrent upload of equal bytes is about to reference."""

from __future__ import annotations

import os
from pathlib import Path

from agentur.runtime import Runtime
from agentur.storage.blob_store import BlobStore
from agentur.storage.models import File
from agentur.workspace.blob_garbage import sweep_unreferenced_blobs
from agentur.workspace.files import FileService
from tests.conftest import Tenants

LONG_AGO_NS = 1_000_000_000_000_000_000  # 2001


def _age(store: BlobStore, sha: str) -> None:
    os.utime(store.path_for(sha), ns=(LONG_AGO_NS, LONG_AGO_NS))


def test_fresh_bytes_survive_release_and_stale_ones_go(tmp_path: Path) -> None:
    store = BlobStore(tmp_path, grace_seconds=600)
    blob = store.put_bytes(b"report")
    assert store.release(blob.sha256) is False, "put a moment ago: a commit may be on its way"
    assert store.read_bytes(blob.sha256) == b"report"
    _age(store, blob.sha256)
    assert store.release(blob.sha256) is True
    assert not store.exists(blob.sha256)
    assert list(tmp_path.rglob("*.release")) == []


def test_a_re_put_of_equal_bytes_keeps_them(tmp_path: Path) -> None:
    store = BlobStore(tmp_path, grace_seconds=600)
    blob = store.put_bytes(b"shared")
    _age(store, blob.sha256)  # stored long ago by a file now being deleted
    store.put_bytes(b"shared")  # a concurrent upload of the same bytes, not yet committed
    assert store.release(blob.sha256) is False
    assert store.read_bytes(blob.sha256) == b"shared"


def test_a_writer_undoes_only_its_own_put(tmp_path: Path) -> None:
    store = BlobStore(tmp_path, grace_seconds=600)
    mine = store.put_bytes(b"draft")
    assert store.release(mine.sha256, written_ns=mine.written_ns) is True
    mine = store.put_bytes(b"draft")
    _age(store, mine.sha256)
    store.put_bytes(b"draft")  # someone else put equal bytes after me
    assert store.release(mine.sha256, written_ns=LONG_AGO_NS) is False
    assert store.exists(mine.sha256)


async def test_delete_during_an_equal_upload_keeps_the_bytes_and_the_sweep_cleans_up(
    runtime: Runtime, tenants: Tenants
) -> None:
    runtime.blobs.grace_seconds = 600
    alice = await tenants.member()
    async with runtime.database.session() as session:
        files = FileService(session, runtime.blobs, alice.context, runtime.workspace_limits)
        old = await files.write_text("old.txt", "the same bytes")
        await files.commit()
        _age(runtime.blobs, old.sha256)
        # Another request has put equal bytes and is about to commit its row …
        runtime.blobs.put_bytes(b"the same bytes")
        # … while this one deletes the last committed file that uses them.
        await files.delete(old.id)
        await files.commit()
    assert runtime.blobs.exists(old.sha256), "the pending upload would have lost its bytes"

    async with runtime.database.transaction() as session:
        session.add(
            File(
                mandate_id=alice.mandate_id,
                owner_id=alice.user_id,
                name="new.txt",
                scope="personal",
                size=14,
                mime_type="text/plain",
                sha256=old.sha256,
            )
        )
    _age(runtime.blobs, old.sha256)
    assert await sweep_unreferenced_blobs(runtime.database, runtime.blobs) == 0
    assert runtime.blobs.exists(old.sha256), "referenced bytes are never swept"

    async with runtime.database.transaction() as session:
        for row in await session.scalars(File.__table__.select().with_only_columns(File.id)):
            await session.delete(await session.get(File, row))
    assert await sweep_unreferenced_blobs(runtime.database, runtime.blobs) == 1
    assert not runtime.blobs.exists(old.sha256)
