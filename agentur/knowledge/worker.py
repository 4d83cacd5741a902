"""The background indexer: finds files whose index is missing or stale and indexes them.

It needs no hook in the upload path: it polls (`AGENTUR_KNOWLEDGE_WORKER_POLL_SECONDS`) for files
whose sha256, scope or the current parser/chunker/model config differ from their index, so
uploads, replacements, copies and pending `reindex` requests are all found the same way, and
work left by a crash is found again after a restart. `wake()` shortens the wait.
On PostgreSQL several workers (`agentur index --worker`) may run: a claim is a row lease.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time

from agentur.knowledge.chunk_store import sweep_orphans
from agentur.knowledge.indexer import FileIndexer, IndexOutcome
from agentur.observability import metrics

logger = logging.getLogger(__name__)

# Files looked at per round: two embedding batches' worth of small files, so one batch embeds
# while the next is claimed and chunked (agentur/knowledge/indexer.py).
BATCH = 64
# Outcomes that did work (so there may be more): anything but unchanged / busy.
WORKED = ("indexed", "lexical_only", "failed", "no_text", "gone")
SWEEP_INTERVAL_SECONDS = 60.0


class IndexWorker:
    def __init__(self, indexer: FileIndexer, poll_seconds: float) -> None:
        self.indexer = indexer
        self.poll_seconds = poll_seconds
        self._wake = asyncio.Event()
        self._task: asyncio.Task[None] | None = None
        self._last_sweep = 0.0

    def wake(self) -> None:
        self._wake.set()

    async def run_once(self, limit: int = BATCH) -> list[IndexOutcome]:
        stale = await self.indexer.stale_file_ids(limit)
        metrics.index_pending_files.set(len(stale))
        outcomes = await self.indexer.index_files(stale)
        if time.monotonic() - self._last_sweep > SWEEP_INTERVAL_SECONDS:
            self._last_sweep = time.monotonic()
            async with self.indexer.database.transaction() as session:
                await sweep_orphans(session)
        return outcomes

    async def run_until_idle(self) -> list[IndexOutcome]:
        done: list[IndexOutcome] = []
        while True:
            batch = await self.run_once()
            done += batch
            if not any(o.status in WORKED for o in batch):
                return done

    async def run_forever(self) -> None:
        if self.indexer.database.is_sqlite:
            # One process owns a SQLite file: claims still open were left by a crash.
            await self.indexer.recover_abandoned()
        while True:
            try:
                outcomes = await self.run_once()
            except Exception:  # the worker outlives any one failure (database restarts, …)
                logger.exception("knowledge worker round failed")
                outcomes = []
            if any(o.status in WORKED for o in outcomes):
                continue
            self._wake.clear()
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self._wake.wait(), self.poll_seconds)

    def start(self) -> asyncio.Task[None]:
        if self._task is None or self._task.done():
            self._task = asyncio.create_task(self.run_forever(), name="knowledge-worker")
        return self._task

    async def stop(self) -> None:
        if self._task is not None:
            self._task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._task
            self._task = None
