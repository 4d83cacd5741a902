"""The embedding step of indexing, with its progress (chunks done of total, since when) written
to the file's index row so `/v1/files/{id}/index` can show it and an ETA."""

from __future__ import annotations

import itertools
from collections.abc import Awaitable, Callable
from dataclasses import dataclass

from sqlalchemy import update

from agentur.context import RequestContext, utc_now
from agentur.knowledge.embedding import Embedder, EmbeddingUnavailable
from agentur.storage.database import Database
from agentur.storage.models.knowledge import FileContentIndex

MAX_ERROR_CHARS = 2_000

ProgressCallback = Callable[[int, int], Awaitable[None]]


@dataclass(frozen=True, slots=True)
class EmbeddedChunks:
    """No vectors and no error: no embedder is configured; no vectors with error: it failed."""

    vectors: list[list[float]] | None
    model: str | None
    error: str | None


class IndexProgress:
    """Records chunks done of `total` for one claimed file, and tells `on_progress` too."""

    def __init__(
        self,
        database: Database,
        file_id: str,
        worker_id: str,
        total: int,
        on_progress: ProgressCallback | None,
    ) -> None:
        self.database, self.file_id, self.worker_id = database, file_id, worker_id
        self.total, self.on_progress = total, on_progress
        self.started = utc_now()

    async def __call__(self, done: int, *, record: bool = True) -> None:
        if record:
            # A plain UPDATE by claim: matches nothing (and raises nothing) once the file is gone.
            async with self.database.transaction() as session:
                await session.execute(
                    update(FileContentIndex)
                    .where(
                        FileContentIndex.file_id == self.file_id,
                        FileContentIndex.claimed_by == self.worker_id,
                    )
                    .values(
                        chunks_total=self.total,
                        chunks_done=done,
                        progress_started_at=self.started,
                    )
                )
        if self.on_progress is not None:
            await self.on_progress(done, self.total)


async def embed_chunks(
    embedder: Embedder,
    texts: list[list[str]],
    context: RequestContext,
    progress: list[IndexProgress],
) -> list[EmbeddedChunks]:
    """Embed the chunk texts of several files (one owner) in shared batches, so small files fill
    a batch together; each file's progress follows its own chunks."""
    ends = list(itertools.accumulate(len(t) for t in texts))
    # A file that fits one batch finishes at once: its final write records that, no progress row.
    record = [len(t) > embedder.batch for t in texts]
    reported = [-1] * len(texts)

    async def batch_done(done: int) -> None:
        for i, file_progress in enumerate(progress):
            mine = min(max(done - (ends[i] - len(texts[i])), 0), len(texts[i]))
            if mine != reported[i]:
                reported[i] = mine
                await file_progress(mine, record=record[i])

    await batch_done(0)
    flat = [text for file_texts in texts for text in file_texts]
    if not flat or not embedder.configured:
        await batch_done(len(flat))
        return [EmbeddedChunks(None, None, None) for _ in texts]
    try:
        embedded = await embedder.embed(flat, context, purpose="index", on_batch=batch_done)
    except EmbeddingUnavailable as error:
        return [EmbeddedChunks(None, None, str(error)[:MAX_ERROR_CHARS]) for _ in texts]
    return [
        EmbeddedChunks(embedded.vectors[end - len(t) : end], embedded.model, None)
        for t, end in zip(texts, ends, strict=True)
    ]
