"""`index_files`: claim → extract → neutralize → chunk → embed → one atomic write per file.

Extraction, chunking and the local model's passage embeddings run in the low-priority worker
process (agentur.cpu_pool, `AGENTUR_KNOWLEDGE_INDEX_EXECUTOR`), never on the event loop. Small
files go in batches (a one-sentence file's claim, thread trips and commit used to cost as much as
embedding it): claimed together, chunked in one thread call, one owner's files share embedding
batches, and a batch is written in one transaction — redone file by file when any write fails,
so each file keeps its own status. While a batch embeds, the next one is claimed and chunked.
Progress (chunks embedded of total) is written to the
index row while a file embeds; a file whose vectors could not be had is `lexical_only` and retried.

Only the last step touches the chunks, in a single transaction that replaces each file's old
chunks, terms and vectors and marks the index `indexed`. A crash before it leaves the previous
index (or none) and a claimed row that is picked up again (lease expiry, or start-up recovery on
the embedded default). What was indexed is recorded as (file sha256, parser + chunker config,
embedding model, scope); any difference re-indexes the file, nothing else is touched.
"""

from __future__ import annotations

import asyncio
import logging
import uuid
from collections.abc import Awaitable, Callable
from datetime import timedelta

from sqlalchemy import and_, or_, select, update
from sqlalchemy.ext.asyncio import AsyncSession

from agentur.context import RequestContext, Role, utc_now
from agentur.cpu_pool import background_work, offload
from agentur.errors import InvalidInputError
from agentur.knowledge.chunking import ChunkingConfig
from agentur.knowledge.claim_files import ClaimRules, claim_file, claim_small_files
from agentur.knowledge.embed_chunks import IndexProgress, ProgressCallback, embed_chunks
from agentur.knowledge.embedding import Embedder
from agentur.knowledge.extract import PARSER_VERSION, extract
from agentur.knowledge.extract.settings import OcrSettings
from agentur.knowledge.in_flight import InFlight
from agentur.knowledge.neutralize_document import neutralize_document
from agentur.knowledge.prepare_chunks import (
    PreparedChunks,
    extract_and_prepare,
    prepare_chunks,
    read_and_prepare_many,
)
from agentur.knowledge.settings import KnowledgeSettings
from agentur.knowledge.write_index import (
    FAILED,
    GONE_ERRORS,
    INDEXED,
    INDEXING,
    LEXICAL_ONLY,
    PENDING,
    BuiltFile,
    Claim,
    IndexOutcome,
    index_row,
    write_failure,
    write_index,
    write_indexes,
)
from agentur.observability import metrics
from agentur.storage.blob_store import BlobStore
from agentur.storage.database import Database
from agentur.storage.models import File
from agentur.storage.models.knowledge import NO_TEXT, FileContentIndex
from agentur.workspace.text_window import NotTextError

logger = logging.getLogger(__name__)

__all__ = ["FileIndexer", "IndexOutcome", "owner_context"]


def owner_context(mandate_id: str, owner_id: str) -> RequestContext:
    """Background work acts for the file's owner in the file's mandate (billing, neutralization)."""
    return RequestContext(user_id=owner_id, mandate_id=mandate_id, role=Role.member)


class FileIndexer:
    def __init__(
        self,
        database: Database,
        blobs: BlobStore,
        ai: object,
        embedder: Embedder,
        settings: KnowledgeSettings,
        ocr: OcrSettings,
        *,
        worker_id: str | None = None,
        # Test seam: awaited with the file id inside the write transaction after the file's
        # chunks are written.
        after_chunks_written: Callable[[str], Awaitable[None]] | None = None,
    ) -> None:
        self.database = database
        self.blobs = blobs
        self.ai = ai
        self.embedder = embedder
        self.settings = settings
        self.ocr = ocr
        self.worker_id = worker_id or f"worker-{uuid.uuid4().hex[:12]}"
        self.after_chunks_written = after_chunks_written
        self.chunking = ChunkingConfig(
            settings.knowledge_chunk_size,
            settings.knowledge_chunk_overlap,
            settings.knowledge_table_max_chars,
        )

    @property
    def config_key(self) -> str:
        model = self.embedder.model if self.embedder.configured else "none"
        return f"p{PARSER_VERSION}-{self.chunking.key}-{model}"

    # --- finding work ----------------------------------------------------------------------

    def _stale_condition(self):  # noqa: ANN202 - a SQLAlchemy boolean clause
        now = utc_now()
        expired = now - timedelta(seconds=self.settings.knowledge_worker_lease_seconds)
        retry = now - timedelta(seconds=self.settings.knowledge_embedding_retry_seconds)
        return or_(
            FileContentIndex.id.is_(None),
            FileContentIndex.status == PENDING,
            and_(FileContentIndex.status == INDEXING, FileContentIndex.claimed_at < expired),
            # Indexed while the embedder was down: try for vectors again now and then.
            and_(FileContentIndex.status == LEXICAL_ONLY, FileContentIndex.indexed_at < retry),
            and_(
                FileContentIndex.status.in_([INDEXED, LEXICAL_ONLY, FAILED, NO_TEXT]),
                or_(
                    FileContentIndex.content_sha256.is_distinct_from(File.sha256),
                    FileContentIndex.config_key.is_distinct_from(self.config_key),
                    FileContentIndex.scope != File.scope,
                ),
            ),
        )

    async def stale_file_ids(self, limit: int, file_ids: list[str] | None = None) -> list[str]:
        async with self.database.session() as session:
            query = (
                select(File.id)
                .outerjoin(FileContentIndex, FileContentIndex.file_id == File.id)
                .where(self._stale_condition())
                .order_by(File.created_at, File.id)
                .limit(limit)
            )
            if file_ids is not None:
                query = query.where(File.id.in_(file_ids))
            return list((await session.execute(query)).scalars())

    async def recover_abandoned(self) -> int:
        """Embedded default (one process): claims left by a crashed run become pending."""
        async with self.database.transaction() as session:
            result = await session.execute(
                update(FileContentIndex)
                .where(FileContentIndex.status == INDEXING)
                .values(status=PENDING, claimed_by=None, claimed_at=None)
            )
            return int(result.rowcount or 0)  # type: ignore[attr-defined]

    # --- indexing --------------------------------------------------------------------------

    async def index_file(
        self, file_id: str, *, force: bool = False, on_progress: ProgressCallback | None = None
    ) -> IndexOutcome:
        """Index one file; `on_progress(chunks_done, chunks_total)` follows the embedding."""
        (outcome,) = await self.index_files([file_id], force=force, on_progress=on_progress)
        return outcome

    async def index_files(
        self,
        file_ids: list[str],
        *,
        force: bool = False,
        on_progress: ProgressCallback | None = None,
    ) -> list[IndexOutcome]:
        """Index files one after the other; small files go in batches: claimed together, read
        and chunked in one thread call, their chunks embedded together (one owner's files share
        a model call) and written in one transaction, each file with its own status. While a
        batch embeds (in the worker process), the next small files are claimed and chunked."""
        done: dict[str, IndexOutcome] = {}
        waiting: dict[tuple[str, str], list[BuiltFile]] = {}
        flight = InFlight()
        process = self.settings.knowledge_index_executor == "process"
        try:
            with background_work(self.settings.knowledge_index_nice if process else None):
                for start in range(0, len(file_ids), self.embedder.batch):
                    some = file_ids[start : start + self.embedder.batch]
                    ready = await self._claim_and_build_small(some, force)
                    for file_id in some:
                        built = ready.get(file_id)
                        if built is None:  # a large file: claimed right before its turn
                            await flight.drain()
                            built = await self._claim_and_build(file_id, force)
                        if isinstance(built, IndexOutcome):
                            done[file_id] = built
                            continue
                        owner = (built.claim.mandate_id, built.claim.owner_id)
                        group = waiting.setdefault(owner, [])
                        group.append(built)
                        if sum(len(b.prepared.drafts) for b in group) >= self.embedder.batch:
                            await flight.start(self._finish(waiting.pop(owner), on_progress))
                for group in waiting.values():
                    await flight.start(self._finish(group, on_progress))
                await flight.drain()
        finally:
            await flight.cancel()
        done.update(flight.done)
        for outcome in done.values():
            metrics.indexed_files.labels(outcome.status).inc()
            if outcome.status in ("indexed", "lexical_only"):
                metrics.indexed_chunks.inc(outcome.chunks)
        return [done[file_id] for file_id in file_ids]

    async def _claim_and_build(self, file_id: str, force: bool) -> BuiltFile | IndexOutcome:
        claim = await claim_file(self.database, file_id, self._claim_rules, force=force)
        return claim if isinstance(claim, IndexOutcome) else await self._build(claim)

    async def _claim_and_build_small(
        self, file_ids: list[str], force: bool
    ) -> dict[str, BuiltFile | IndexOutcome]:
        """The small files among `file_ids`, claimed in one transaction and read and chunked in
        one thread call; the rest (large, to be neutralized, or not claimable as a batch) are
        left to `_claim_and_build`."""
        max_bytes = min(
            self.settings.knowledge_index_inline_bytes, self.settings.knowledge_max_extract_bytes
        )
        claims = await claim_small_files(
            self.database, file_ids, self._claim_rules, force=force, max_bytes=max_bytes
        )
        ready: dict[str, BuiltFile | IndexOutcome] = {
            i: c for i, c in claims.items() if isinstance(c, IndexOutcome)
        }
        todo = [c for c in claims.values() if isinstance(c, Claim)]
        if not todo:
            return ready
        results = await asyncio.to_thread(
            read_and_prepare_many,
            self.blobs.read_bytes,
            [(c.sha256, c.name, c.mime_type) for c in todo],
            self.chunking,
            self.ocr,
        )
        for claim, result in zip(todo, results, strict=True):
            if isinstance(result, InvalidInputError | OSError):
                ready[claim.file_id] = await self._unreadable(claim, result)
            elif isinstance(result, Exception):
                ready[claim.file_id] = await self._failed(claim, result)
            else:
                document, prepared = result
                context = owner_context(claim.mandate_id, claim.owner_id)
                ready[claim.file_id] = BuiltFile(claim, document, prepared, "not_required", context)
        return ready

    async def _build(self, claim: Claim) -> BuiltFile | IndexOutcome:
        try:
            return await self._extract_and_chunk(claim)
        except GONE_ERRORS:
            return IndexOutcome(claim.file_id, "gone")
        except Exception as error:  # anything unexpected: record it, never lose the loop
            return await self._failed(claim, error)

    async def _finish(
        self, group: list[BuiltFile], on_progress: ProgressCallback | None
    ) -> dict[str, IndexOutcome]:
        """Embed a group's chunks together, then write each file in its own transaction."""
        if not group:
            return {}
        progress = [
            IndexProgress(
                self.database, b.claim.file_id, self.worker_id, len(b.prepared.drafts), on_progress
            )
            for b in group
        ]
        texts = [[d.context_text for d in b.prepared.drafts] for b in group]
        try:
            embedded = await embed_chunks(self.embedder, texts, group[0].context, progress)
        except Exception as error:  # e.g. the database went away while recording progress
            return {b.claim.file_id: await self._failed(b.claim, error) for b in group}
        written = None
        if len(group) > 1:
            written = await write_indexes(
                self.database,
                list(zip(group, embedded, strict=True)),
                worker_id=self.worker_id,
                config_key=self.config_key,
                after_chunks_written=self.after_chunks_written,
            )
        if written is not None:
            return {outcome.file_id: outcome for outcome in written}
        outcomes: dict[str, IndexOutcome] = {}
        for built, vectors in zip(group, embedded, strict=True):
            try:
                outcomes[built.claim.file_id] = await write_index(
                    self.database,
                    built,
                    vectors,
                    worker_id=self.worker_id,
                    config_key=self.config_key,
                    after_chunks_written=self.after_chunks_written,
                )
            except Exception as error:  # noqa: BLE001 - recorded per file
                outcomes[built.claim.file_id] = await self._failed(built.claim, error)
        return outcomes

    async def _failed(self, claim: Claim, error: Exception) -> IndexOutcome:
        logger.exception("indexing %s failed", claim.file_id, exc_info=error)
        message = f"{type(error).__name__}: {error}"
        outcome = await self._store_failure(claim, message, None)
        return IndexOutcome(claim.file_id, outcome.status, error=str(error))

    @property
    def _claim_rules(self) -> ClaimRules:
        lease = timedelta(seconds=self.settings.knowledge_worker_lease_seconds)
        return ClaimRules(self.worker_id, self.config_key, lease)

    async def _unreadable(self, claim: Claim, error: InvalidInputError | OSError) -> IndexOutcome:
        message = getattr(error, "detail", None) or str(error)
        if isinstance(error, NotTextError):
            return await write_failure(
                self.database, claim, message, None, config_key=self.config_key, status=NO_TEXT
            )
        return await self._store_failure(claim, message, None)

    async def _extract_and_chunk(self, claim: Claim) -> BuiltFile | IndexOutcome:
        if claim.size > self.settings.knowledge_max_extract_bytes:
            message = f"file is larger than {self.settings.knowledge_max_extract_bytes} bytes"
            return await self._store_failure(claim, message, None)
        prepared: PreparedChunks | None = None
        small = claim.size <= self.settings.knowledge_index_inline_bytes
        run = asyncio.to_thread if small else offload  # a tiny file is not worth a round trip
        try:
            data = await asyncio.to_thread(self.blobs.read_bytes, claim.sha256)
            if claim.neutralize:  # neutralize between extraction and chunking
                document = await run(extract, data, claim.name, claim.mime_type, self.ocr)
            else:
                document, prepared = await run(
                    extract_and_prepare,
                    data,
                    claim.name,
                    claim.mime_type,
                    self.chunking,
                    self.ocr,
                )
        except (InvalidInputError, OSError) as error:
            return await self._unreadable(claim, error)
        context = owner_context(claim.mandate_id, claim.owner_id)
        neutralization = "not_required"
        if claim.neutralize:
            try:
                document = await neutralize_document(
                    document,
                    lambda text: self.ai.neutralize_text(text, context),  # type: ignore[attr-defined]
                )
                neutralization = "neutralized"
            except Exception as error:  # noqa: BLE001 - no neutralization, nothing stored
                message = f"neutralization failed, nothing stored: {type(error).__name__}: {error}"
                return await self._store_failure(claim, message, "failed")
        if prepared is None:
            prepared = await run(prepare_chunks, document, self.chunking)
        return BuiltFile(claim, document, prepared, neutralization, context)

    async def _store_failure(
        self, claim: Claim, message: str, neutralization: str | None
    ) -> IndexOutcome:
        return await write_failure(
            self.database, claim, message, neutralization, config_key=self.config_key
        )

    async def request_reindex(self, session: AsyncSession, file: File) -> FileContentIndex:
        """Mark a file for re-indexing (the caller commits); the worker does the rest."""
        index = await index_row(session, file.id)
        if index is None:
            index = FileContentIndex(
                file_id=file.id,
                mandate_id=file.mandate_id,
                owner_id=file.owner_id,
                scope=file.scope,
                feature_instance_id=file.feature_instance_id,
                chunk_count=0,
            )
            session.add(index)
        index.status, index.claimed_by, index.claimed_at = PENDING, None, None
        await session.flush()
        return index
