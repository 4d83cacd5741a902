"""A worker killed in the middle of writing an index leaves no half index; the work resumes."""

from __future__ import annotations

import asyncio
import os
import signal
import sys
from pathlib import Path

from sqlalchemy import func, select

from agentur.knowledge.store import KnowledgeStore
from agentur.runtime import Runtime
from agentur.storage.models.knowledge import ContentChunk, FileContentIndex
from tests.knowledge.conftest import upload

ROOT = Path(__file__).resolve().parents[2]
LONG = "# Report\n\n" + "\n\n".join(f"Paragraph {i} about river {i}." for i in range(60))


async def test_killed_worker_leaves_no_half_index_and_work_resumes(
    runtime: Runtime, store: KnowledgeStore, tenants, tmp_path: Path
) -> None:
    alice = await tenants.member()
    file = await upload(runtime, alice.context, "report.md", LONG)
    signal_file = tmp_path / "signal"
    child = await asyncio.create_subprocess_exec(
        sys.executable,
        "-m",
        "tests.knowledge.crash_worker",
        runtime.settings.resolved_database_url,
        str(runtime.settings.data_dir),
        file.id,
        str(signal_file),
        cwd=ROOT,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
    )
    try:
        for _ in range(600):  # the child writes the chunks, then waits inside the transaction
            if await asyncio.to_thread(signal_file.exists) or child.returncode is not None:
                break
            await asyncio.sleep(0.05)
        assert await asyncio.to_thread(signal_file.exists), "the child never got to the write"
    finally:
        child.send_signal(signal.SIGKILL)
        await child.wait()

    async with runtime.database.session() as session:
        chunks = await session.scalar(
            select(func.count()).select_from(ContentChunk).where(ContentChunk.file_id == file.id)
        )
        index = await session.scalar(
            select(FileContentIndex).where(FileContentIndex.file_id == file.id)
        )
    assert chunks == 0  # the uncommitted chunks vanished with the process
    assert index.status == "indexing" and index.extracted_text is None

    # A restart of the embedded worker takes the abandoned claim back and finishes the file.
    assert await store.indexer.recover_abandoned() == 1
    outcomes = await store.worker.run_until_idle()
    assert [(o.file_id, o.status) for o in outcomes] == [(file.id, "indexed")]
    async with runtime.database.session() as session:
        count = await session.scalar(
            select(func.count()).select_from(ContentChunk).where(ContentChunk.file_id == file.id)
        )
    assert count == outcomes[0].chunks > 1
