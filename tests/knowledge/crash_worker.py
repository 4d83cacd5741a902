"""Run by test_crash_recovery in a child process: index one file and stop inside the write
transaction (after the chunks are written, before the commit) until killed."""

from __future__ import annotations

import asyncio
import sys
from pathlib import Path

from agentur.ai.providers.scripted import ScriptedProvider
from agentur.ai.service import AiService
from agentur.ai.settings import AiSettings
from agentur.config import Settings
from agentur.knowledge.store import KnowledgeStore
from agentur.runtime import Runtime
from agentur.settings import AllSettings
from agentur.storage.blob_store import BlobStore
from agentur.storage.database import Database
from tests.knowledge.conftest import knowledge_settings


async def main(database_url: str, data_dir: str, file_id: str, signal_path: str) -> None:
    settings = Settings(data_dir=Path(data_dir), database_url=database_url)
    runtime = Runtime(
        settings=settings,
        database=Database(settings.resolved_database_url),
        blobs=BlobStore(settings.blob_dir),
        ai=AiService([ScriptedProvider()], settings=AiSettings()),
        all_settings=AllSettings.from_environment(settings),
    )

    async def hang(file_id: str) -> None:
        await asyncio.to_thread(Path(signal_path).write_text, "chunks written")
        await asyncio.sleep(3600)

    store = KnowledgeStore(runtime, knowledge_settings(), after_chunks_written=hang)
    await store.indexer.index_file(file_id)


if __name__ == "__main__":
    asyncio.run(main(*sys.argv[1:]))
