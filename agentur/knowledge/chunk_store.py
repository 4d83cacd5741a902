"""Writes and deletes a file's chunks with their lexical terms and vectors, per dialect.

Everything here runs inside the caller's transaction, so a file's chunks, terms and vectors
appear (or vanish) together.
"""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from dataclasses import dataclass

from sqlalchemy import delete, select, text
from sqlalchemy.ext.asyncio import AsyncSession

from agentur.knowledge.sqlite_vectors import bits_table, ensure_bits_table, write_vectors
from agentur.storage.models.knowledge import ContentChunk

GLOBAL_PARTITION = "global"


@dataclass(frozen=True, slots=True)
class ChunkRow:
    ordinal: int
    text: str
    heading_path: list[str]
    content_type: str
    page: int | None
    start: int
    end: int
    language: str
    terms: str
    vector: list[float] | None


def partition_of(mandate_id: str, scope: str) -> str:
    """Vectors are partitioned by tenant; global files sit in a partition everyone searches."""
    return GLOBAL_PARTITION if scope == "global" else mandate_id


def is_sqlite(session: AsyncSession) -> bool:
    return session.bind.dialect.name == "sqlite"


async def ensure_vector_storage(session: AsyncSession, dims: int) -> None:
    """Create the per-dimension bit index (SQLite) or HNSW index (PostgreSQL) if missing."""
    dims = int(dims)
    if is_sqlite(session):
        await ensure_bits_table(session, dims)
    else:
        await session.execute(
            text(
                f"CREATE INDEX IF NOT EXISTS ix_knowledge_chunks_hnsw_{dims} ON knowledge_chunks "
                f"USING hnsw ((embedding::vector({dims})) vector_cosine_ops) "
                f"WHERE embedding_dims = {dims}"
            )
        )


async def sqlite_vector_tables(session: AsyncSession) -> list[int]:
    rows = await session.execute(
        text("SELECT name FROM sqlite_master WHERE type = 'table' AND name LIKE 'knowledge_bits_%'")
    )
    return [
        int(name.rsplit("_", 1)[1]) for (name,) in rows if re.fullmatch(r"knowledge_bits_\d+", name)
    ]


async def delete_file_chunks(session: AsyncSession, file_id: str) -> None:
    if is_sqlite(session):
        rows = (
            await session.execute(
                select(ContentChunk.id, ContentChunk.embedding_dims).where(
                    ContentChunk.file_id == file_id
                )
            )
        ).all()
        ids = [row.id for row in rows]
        for start in range(0, len(ids), 500):
            batch = ids[start : start + 500]
            marks = ",".join(str(int(i)) for i in batch)
            await session.execute(
                text(f"DELETE FROM knowledge_chunks_fts WHERE rowid IN ({marks})")
            )
            for dims in {row.embedding_dims for row in rows if row.embedding_dims}:
                await session.execute(
                    text(f"DELETE FROM {bits_table(dims)} WHERE rowid IN ({marks})")
                )
    await session.execute(delete(ContentChunk).where(ContentChunk.file_id == file_id))


async def insert_chunks(
    session: AsyncSession,
    *,
    file_id: str,
    mandate_id: str,
    scope: str,
    rows: Sequence[ChunkRow],
    embedding_model: str | None,
    create_index: bool = True,
) -> None:
    """`create_index=False`: a bulk import that builds the vector index once after the rows
    (PostgreSQL; inserting into a live HNSW index is many times slower)."""
    if not rows:
        return
    dims = next((len(r.vector) for r in rows if r.vector), None)
    if dims and (create_index or is_sqlite(session)):
        await ensure_vector_storage(session, dims)
    if not is_sqlite(session):
        await _insert_postgres(session, file_id, mandate_id, scope, rows, embedding_model)
        return
    chunks = [
        ContentChunk(
            file_id=file_id,
            mandate_id=mandate_id,
            scope=scope,
            ordinal=row.ordinal,
            text=row.text,
            heading_path=row.heading_path,
            content_type=row.content_type,
            page=row.page,
            start_offset=row.start,
            end_offset=row.end,
            language=row.language,
            embedding_model=embedding_model if row.vector else None,
            embedding_dims=len(row.vector) if row.vector else None,
        )
        for row in rows
    ]
    session.add_all(chunks)
    await session.flush()
    await session.execute(
        text("INSERT INTO knowledge_chunks_fts(rowid, terms) VALUES (:id, :terms)"),
        [{"id": c.id, "terms": r.terms} for c, r in zip(chunks, rows, strict=True)],
    )
    if dims:
        part = partition_of(mandate_id, scope)
        await write_vectors(
            session,
            dims,
            [(c.id, part, r.vector) for c, r in zip(chunks, rows, strict=True) if r.vector],
        )


# One statement for the whole file, every column at once: the term-statistics trigger runs
# once, not per row, and each chunk is written once. (Inserting the rows and then updating
# their tsvector and vector left a dead version of every row behind: 100k chunks took a
# 149 MB heap instead of 23 MB, too large for shared buffers, and the lexical leg, which
# visits a heap row per candidate, cost ~17% more server CPU.)
_INSERT_POSTGRES = text(
    """
INSERT INTO knowledge_chunks (file_id, mandate_id, scope, ordinal, text, heading_path,
    content_type, page, start_offset, end_offset, language, embedding_model, embedding_dims,
    tsv, tsv_length, embedding)
SELECT :file_id, :mandate_id, :scope, u.ordinal, u.text, CAST(u.heading_path AS json),
    u.content_type, u.page, u.start_offset, u.end_offset, u.language,
    CASE WHEN u.v IS NULL THEN NULL ELSE CAST(:model AS text) END, u.dims, d.tsv, length(d.tsv),
    CAST(u.v AS vector)
FROM unnest(CAST(:ordinals AS int[]), CAST(:texts AS text[]), CAST(:headings AS text[]),
    CAST(:types AS text[]), CAST(:pages AS int[]), CAST(:starts AS int[]),
    CAST(:ends AS int[]), CAST(:languages AS text[]), CAST(:terms AS text[]),
    CAST(:vs AS text[]), CAST(:dims AS int[]))
    AS u(ordinal, text, heading_path, content_type, page, start_offset, end_offset, language,
         terms, v, dims)
CROSS JOIN LATERAL (SELECT to_tsvector('simple', u.terms) AS tsv) AS d
"""
)


async def _insert_postgres(
    session: AsyncSession,
    file_id: str,
    mandate_id: str,
    scope: str,
    rows: Sequence[ChunkRow],
    embedding_model: str | None,
) -> None:
    await session.execute(
        _INSERT_POSTGRES,
        {
            "file_id": file_id,
            "mandate_id": mandate_id,
            "scope": scope,
            "model": embedding_model,
            "ordinals": [r.ordinal for r in rows],
            "texts": [r.text for r in rows],
            "headings": [json.dumps(r.heading_path) for r in rows],
            "types": [r.content_type for r in rows],
            "pages": [r.page for r in rows],
            "starts": [r.start for r in rows],
            "ends": [r.end for r in rows],
            "languages": [r.language for r in rows],
            "terms": [r.terms for r in rows],
            "vs": [json.dumps(r.vector) if r.vector else None for r in rows],
            "dims": [len(r.vector) if r.vector else None for r in rows],
        },
    )


async def sweep_orphans(session: AsyncSession) -> None:
    """SQLite only: terms and vectors of chunks removed by a file delete's cascade."""
    if not is_sqlite(session):
        return
    await session.execute(
        text(
            "DELETE FROM knowledge_chunks_fts WHERE rowid NOT IN (SELECT id FROM knowledge_chunks)"
        )
    )
    for dims in await sqlite_vector_tables(session):
        await session.execute(
            text(
                f"DELETE FROM {bits_table(dims)} "
                "WHERE rowid NOT IN (SELECT id FROM knowledge_chunks)"
            )
        )
