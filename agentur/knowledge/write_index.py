"""The last step of indexing: one transaction replaces a file's chunks, terms and vectors and
records what its index was built from; or records a failure (a failed file keeps no chunks)."""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass

from sqlalchemy import select
from sqlalchemy.exc import IntegrityError
from sqlalchemy.ext.asyncio import AsyncSession
from sqlalchemy.orm.exc import StaleDataError

from agentur.context import RequestContext, utc_now
from agentur.knowledge.chunk_store import ChunkRow, delete_file_chunks, insert_chunks
from agentur.knowledge.embed_chunks import MAX_ERROR_CHARS, EmbeddedChunks
from agentur.knowledge.prepare_chunks import PreparedChunks
from agentur.knowledge.udm import Document
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
    status: str  # indexed | lexical_only | failed | no_text | unchanged | busy | gone
    chunks: int = 0
    error: str | None = None
    embedded: bool = False


@dataclass(frozen=True, slots=True)
class Claim:
    file_id: str
    name: str
    mime_type: str
    sha256: str
    size: int
    neutralize: bool
    mandate_id: str
    owner_id: str
    scope: str


@dataclass(frozen=True, slots=True)
class BuiltFile:
    """A claimed file extracted (and neutralized) and chunked, waiting for its vectors."""

    claim: Claim
    document: Document
    prepared: PreparedChunks
    neutralization: str  # not_required | neutralized
    context: RequestContext


async def index_row(session: AsyncSession, file_id: str) -> FileContentIndex | None:
    return (
        await session.execute(select(FileContentIndex).where(FileContentIndex.file_id == file_id))
    ).scalar_one_or_none()


async def write_index(
    database: Database,
    built: BuiltFile,
    embedded: EmbeddedChunks,
    *,
    worker_id: str,
    config_key: str,
    after_chunks_written: Callable[[str], Awaitable[None]] | None = None,
) -> IndexOutcome:
    try:
        async with database.transaction() as session:
            return await _write(
                session, built, embedded, worker_id, config_key, after_chunks_written
            )
    except GONE_ERRORS:  # the file was deleted while we worked
        return IndexOutcome(built.claim.file_id, "gone")


async def write_indexes(
    database: Database,
    files: Sequence[tuple[BuiltFile, EmbeddedChunks]],
    *,
    worker_id: str,
    config_key: str,
    after_chunks_written: Callable[[str], Awaitable[None]] | None = None,
) -> list[IndexOutcome] | None:
    """Several files in one transaction (one commit instead of one per file: for small files
    the commits cost more than the chunks). None when any of them failed: then nothing of the
    batch is stored and the caller writes the files one by one, so a bad file fails alone."""
    try:
        async with database.transaction() as session:
            return [
                await _write(session, built, embedded, worker_id, config_key, after_chunks_written)
                for built, embedded in files
            ]
    except Exception:  # noqa: BLE001 - retried per file, where each error is recorded
        logger.info("a batch of %d index writes failed; writing them one by one", len(files))
        return None


async def _write(
    session: AsyncSession,
    built: BuiltFile,
    embedded: EmbeddedChunks,
    worker_id: str,
    config_key: str,
    after_chunks_written: Callable[[str], Awaitable[None]] | None,
) -> IndexOutcome:
    claim, prepared, document = built.claim, built.prepared, built.document
    vectors = embedded.vectors
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
    status = LEXICAL_ONLY if embedded.error is not None else INDEXED
    index = await index_row(session, claim.file_id)
    if index is None or index.claimed_by != worker_id:
        gone = index is None and await session.get(File, claim.file_id) is None
        return IndexOutcome(claim.file_id, "gone" if gone else "busy")
    await delete_file_chunks(session, claim.file_id)
    await insert_chunks(
        session,
        file_id=claim.file_id,
        mandate_id=claim.mandate_id,
        scope=claim.scope,
        rows=rows,
        embedding_model=embedded.model,
    )
    if after_chunks_written is not None:
        await after_chunks_written(claim.file_id)
    index.status, index.error = status, None
    index.content_sha256, index.config_key = claim.sha256, config_key
    index.scope = claim.scope
    index.embedding_model, index.embedding_error = embedded.model, embedded.error
    index.is_neutralized = built.neutralization == "neutralized"
    index.neutralization_status = built.neutralization
    index.format = document.format
    index.structure, index.summary = document.structure(), document.summary()
    index.extracted_text = document.text
    index.chunk_count = index.chunks_total = index.chunks_done = len(rows)
    index.claimed_by, index.claimed_at, index.indexed_at = None, None, utc_now()
    return IndexOutcome(claim.file_id, status, len(rows), embedded=vectors is not None)


async def write_failure(
    database: Database,
    claim: Claim,
    message: str,
    neutralization: str | None,
    *,
    config_key: str,
    status: str = FAILED,
) -> IndexOutcome:
    """Record that the file has no index: `failed` (with the reason), or `no_text`."""
    try:
        async with database.transaction() as session:
            index = await index_row(session, claim.file_id)
            if index is None:
                return IndexOutcome(claim.file_id, "gone")
            # A failed file keeps no chunks: stale or half-trusted content is worse than none.
            await delete_file_chunks(session, claim.file_id)
            index.status, index.error = status, message[:MAX_ERROR_CHARS]
            index.content_sha256, index.config_key = claim.sha256, config_key
            index.scope = claim.scope
            index.structure = index.summary = index.extracted_text = None
            index.chunk_count = 0
            index.is_neutralized = False
            if neutralization is not None:
                index.neutralization_status = neutralization
            index.claimed_by, index.claimed_at = None, None
    except GONE_ERRORS:
        return IndexOutcome(claim.file_id, "gone")
    return IndexOutcome(claim.file_id, status, error=message)
