"""`index_file` (K2): claim → extract → neutralize → chunk → embed → one atomic write.

Only the last step touches the chunks, in a single transaction that replaces the file's old
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
from dataclasses import dataclass
from datetime import timedelta

from sqlalchemy import and_, or_, select, update
from sqlalchemy.exc import IntegrityError
from sqlalchemy.ext.asyncio import AsyncSession
from sqlalchemy.orm.exc import StaleDataError

from agentur.context import RequestContext, Role, utc_now
from agentur.cpu_pool import background_work, offload
from agentur.errors import InvalidInputError
from agentur.knowledge.chunk_store import ChunkRow, delete_file_chunks, insert_chunks
from agentur.knowledge.chunking import ChunkingConfig
from agentur.knowledge.embed_chunks import (
    MAX_ERROR_CHARS,
    EmbeddedChunks,
    IndexProgress,
    ProgressCallback,
    embed_chunks,
)
from agentur.knowledge.embedding import Embedder
from agentur.knowledge.extract import PARSER_VERSION, extract
from agentur.knowledge.neutralize_document import neutralize_document
from agentur.knowledge.prepare_chunks import (
    PreparedChunks,
    extract_and_prepare,
    prepare_chunks,
)
from agentur.knowledge.settings import KnowledgeSettings
from agentur.storage.blob_store import BlobStore
from agentur.storage.database import Database
from agentur.storage.models import File
from agentur.storage.models.knowledge import FileContentIndex

logger = logging.getLogger(__name__)

PENDING, INDEXING, INDEXED, FAILED = "pending", "indexing", "indexed", "failed"
LEXICAL_ONLY = "lexical_only"  # indexed, but the embedder failed: no vectors yet (retried)
# A file deleted while it was indexed: its index row vanished under us (normal, not an error).
GONE_ERRORS = (IntegrityError, StaleDataError)


@dataclass(frozen=True, slots=True)
class IndexOutcome:
    file_id: str
    status: str  # indexed | lexical_only | failed | unchanged | busy | gone
    chunks: int = 0
    error: str | None = None
    embedded: bool = False


@dataclass(frozen=True, slots=True)
class _Claim:
    file_id: str
    name: str
    mime_type: str
    sha256: str
    size: int
    neutralize: bool
    mandate_id: str
    owner_id: str
    scope: str


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
        *,
        worker_id: str | None = None,
        # Test seam: awaited inside the write transaction after the chunks are written.
        after_chunks_written: Callable[[], Awaitable[None]] | None = None,
    ) -> None:
        self.database = database
        self.blobs = blobs
        self.ai = ai
        self.embedder = embedder
        self.settings = settings
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
                FileContentIndex.status.in_([INDEXED, LEXICAL_ONLY, FAILED]),
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
        claim = await self._claim(file_id, force)
        if isinstance(claim, IndexOutcome):
            return claim
        nice = self.settings.knowledge_index_nice
        try:
            with background_work(
                nice if self.settings.knowledge_index_executor == "process" else None
            ):
                return await self._build_and_store(claim, on_progress)
        except GONE_ERRORS:
            logger.debug("file %s was deleted while it was indexed", file_id)
            return IndexOutcome(file_id, "gone")
        except Exception as error:  # anything unexpected: record it, never lose the loop
            logger.exception("indexing %s failed", file_id)
            await self._store_failure(claim, f"{type(error).__name__}: {error}", None)
            return IndexOutcome(file_id, FAILED, error=str(error))

    async def _claim(self, file_id: str, force: bool) -> _Claim | IndexOutcome:
        now = utc_now()
        try:
            async with self.database.transaction() as session:
                file = await session.get(File, file_id)
                if file is None:
                    return IndexOutcome(file_id, "gone")
                index = await _index_row(session, file_id)
                if index is not None and not force and self._is_current(index, file):
                    return IndexOutcome(file_id, "unchanged", index.chunk_count)
                lease = timedelta(seconds=self.settings.knowledge_worker_lease_seconds)
                if (
                    index is not None
                    and index.status == INDEXING
                    and index.claimed_by != self.worker_id
                    and index.claimed_at is not None
                    and index.claimed_at > now - lease
                ):
                    return IndexOutcome(file_id, "busy")
                if index is None:
                    index = FileContentIndex(
                        file_id=file.id, mandate_id=file.mandate_id, chunk_count=0
                    )
                    session.add(index)
                index.owner_id, index.scope = file.owner_id, file.scope
                index.feature_instance_id = file.feature_instance_id
                index.status, index.claimed_by, index.claimed_at = INDEXING, self.worker_id, now
                index.chunks_total = index.chunks_done = index.progress_started_at = None
                return _Claim(
                    file.id,
                    file.name,
                    file.mime_type,
                    file.sha256,
                    file.size,
                    file.neutralize,
                    file.mandate_id,
                    file.owner_id,
                    file.scope,
                )
        except IntegrityError:  # another worker inserted the row first, or the file went
            return IndexOutcome(file_id, "busy")
        except StaleDataError:  # the file (and its index row) was deleted meanwhile
            return IndexOutcome(file_id, "gone")

    def _is_current(self, index: FileContentIndex, file: File) -> bool:
        return (
            index.status in (INDEXED, FAILED)
            and index.content_sha256 == file.sha256
            and index.config_key == self.config_key
            and index.scope == file.scope
        )

    async def _build_and_store(
        self, claim: _Claim, on_progress: ProgressCallback | None
    ) -> IndexOutcome:
        if claim.size > self.settings.knowledge_max_extract_bytes:
            message = f"file is larger than {self.settings.knowledge_max_extract_bytes} bytes"
            await self._store_failure(claim, message, None)
            return IndexOutcome(claim.file_id, FAILED, error=message)
        prepared: PreparedChunks | None = None
        try:
            data = await asyncio.to_thread(self.blobs.read_bytes, claim.sha256)
            if claim.neutralize:  # neutralize between extraction and chunking
                document = await offload(extract, data, claim.name, claim.mime_type)
            else:
                document, prepared = await offload(
                    extract_and_prepare, data, claim.name, claim.mime_type, self.chunking
                )
        except (InvalidInputError, OSError) as error:
            message = getattr(error, "detail", None) or str(error)
            await self._store_failure(claim, message, None)
            return IndexOutcome(claim.file_id, FAILED, error=message)
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
                await self._store_failure(claim, message, "failed")
                return IndexOutcome(claim.file_id, FAILED, error=message)
        if prepared is None:
            prepared = await offload(prepare_chunks, document, self.chunking)
        embedded = await self._embed(claim, prepared, context, on_progress)
        vectors, model, embedding_error = embedded.vectors, embedded.model, embedded.error
        rows = [
            ChunkRow(
                ordinal=d.ordinal,
                text=d.text,
                heading_path=list(d.heading_path),
                content_type=d.content_type.value,
                page=d.page,
                start=d.start,
                end=d.end,
                language=prepared.language,
                terms=prepared.terms[i],
                vector=vectors[i] if vectors else None,
            )
            for i, d in enumerate(prepared.drafts)
        ]
        status = LEXICAL_ONLY if embedding_error is not None else INDEXED
        try:
            async with self.database.transaction() as session:
                index = await _index_row(session, claim.file_id)
                if index is None or index.claimed_by != self.worker_id:
                    gone = index is None and await session.get(File, claim.file_id) is None
                    return IndexOutcome(claim.file_id, "gone" if gone else "busy")
                await delete_file_chunks(session, claim.file_id)
                await insert_chunks(
                    session,
                    file_id=claim.file_id,
                    mandate_id=claim.mandate_id,
                    scope=claim.scope,
                    rows=rows,
                    embedding_model=model,
                )
                if self.after_chunks_written is not None:
                    await self.after_chunks_written()
                index.status, index.error = status, None
                index.content_sha256, index.config_key = claim.sha256, self.config_key
                index.scope = claim.scope
                index.embedding_model, index.embedding_error = model, embedding_error
                index.is_neutralized = neutralization == "neutralized"
                index.neutralization_status = neutralization
                index.format = document.format
                index.structure, index.summary = document.structure(), document.summary()
                index.extracted_text = document.text
                index.chunk_count = index.chunks_total = index.chunks_done = len(rows)
                index.claimed_by, index.claimed_at, index.indexed_at = None, None, utc_now()
        except GONE_ERRORS:  # the file was deleted while we worked
            return IndexOutcome(claim.file_id, "gone")
        return IndexOutcome(claim.file_id, status, len(rows), embedded=vectors is not None)

    async def _embed(
        self,
        claim: _Claim,
        prepared: PreparedChunks,
        context: RequestContext,
        on_progress: ProgressCallback | None,
    ) -> EmbeddedChunks:
        progress = IndexProgress(
            self.database, claim.file_id, self.worker_id, len(prepared.drafts), on_progress
        )
        return await embed_chunks(self.embedder, prepared, context, progress)

    async def _store_failure(self, claim: _Claim, message: str, neutralization: str | None) -> None:
        try:
            async with self.database.transaction() as session:
                index = await _index_row(session, claim.file_id)
                if index is None:
                    return
                # A failed file keeps no chunks: stale or half-trusted content is worse than none.
                await delete_file_chunks(session, claim.file_id)
                index.status, index.error = FAILED, message[:MAX_ERROR_CHARS]
                index.content_sha256, index.config_key = claim.sha256, self.config_key
                index.scope = claim.scope
                index.structure = index.summary = index.extracted_text = None
                index.chunk_count = 0
                index.is_neutralized = False
                if neutralization is not None:
                    index.neutralization_status = neutralization
                index.claimed_by, index.claimed_at = None, None
        except GONE_ERRORS:
            pass

    async def request_reindex(self, session: AsyncSession, file: File) -> FileContentIndex:
        """Mark a file for re-indexing (the caller commits); the worker does the rest."""
        index = await _index_row(session, file.id)
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


async def _index_row(session: AsyncSession, file_id: str) -> FileContentIndex | None:
    return (
        await session.execute(select(FileContentIndex).where(FileContentIndex.file_id == file_id))
    ).scalar_one_or_none()
