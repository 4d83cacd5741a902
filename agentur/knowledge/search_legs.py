"""The two retrieval legs, per dialect, each already filtered by tenant, scope and filters.

Visibility is the workspace's own rule: chunks are joined to their file and filtered with
`visible_files(context)`, so search can never show what the file API would answer 404 for.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass, field

from sqlalchemy import ColumnElement, column, select, table, text
from sqlalchemy.ext.asyncio import AsyncSession

from agentur.context import RequestContext
from agentur.knowledge.chunk_store import GLOBAL_PARTITION, is_sqlite
from agentur.knowledge.sqlite_vectors import nearest
from agentur.storage.models import File
from agentur.storage.models.knowledge import ContentChunk
from agentur.workspace.scopes import visible_files

# KNN rounds on SQLite: oversample, filter, and widen while filters ate too many hits.
KNN_GROWTH = 4
KNN_MAX = 4_000

FTS = table("knowledge_chunks_fts", column("rowid"))


@dataclass(frozen=True, slots=True)
class SearchFilters:
    scopes: Sequence[str] | None = None
    file_ids: Sequence[str] | None = None
    content_types: Sequence[str] | None = None
    exclude_file_ids: Sequence[str] = field(default_factory=tuple)

    def conditions(self, context: RequestContext) -> list[ColumnElement[bool]]:
        found: list[ColumnElement[bool]] = [visible_files(context)]
        if self.scopes is not None:
            found.append(File.scope.in_(list(self.scopes)))
        if self.file_ids is not None:
            found.append(ContentChunk.file_id.in_(list(self.file_ids)))
        if self.content_types is not None:
            found.append(ContentChunk.content_type.in_(list(self.content_types)))
        if self.exclude_file_ids:
            found.append(ContentChunk.file_id.not_in(list(self.exclude_file_ids)))
        return found


async def vector_leg(
    session: AsyncSession,
    vector: list[float],
    model: str,
    context: RequestContext,
    filters: SearchFilters,
    limit: int,
    oversample: int = 2,
) -> list[int]:
    """Nearest chunks the caller may see. The index answers first (HNSW / bit KNN within the
    caller's tenant partition plus global), the visibility filter runs on those candidates;
    when it leaves fewer than `limit`, the candidate set grows. `oversample` (SQLite): bit-index
    candidates per wanted hit that exact cosine ranks."""
    conditions = filters.conditions(context)
    # SQLite oversamples inside `nearest` (bits → exact cosine), so it asks for `limit`; the
    # top-k upkeep of sqlite-vec grows with k.
    k = limit if is_sqlite(session) else max(limit * KNN_GROWTH, 50)
    while True:
        candidates = await _knn(session, vector, model, context, k, oversample)
        if not candidates:
            return []
        allowed = set(
            (
                await session.execute(
                    select(ContentChunk.id)
                    .join(File, File.id == ContentChunk.file_id)
                    .where(ContentChunk.id.in_(candidates), *conditions)
                )
            ).scalars()
        )
        kept = [chunk_id for chunk_id in candidates if chunk_id in allowed]
        # Fewer candidates than asked for: the partitions hold no more.
        if len(kept) >= limit or len(candidates) < k or k >= KNN_MAX:
            return kept[:limit]
        k = min(k * KNN_GROWTH, KNN_MAX)


async def _knn(
    session: AsyncSession,
    vector: list[float],
    model: str,
    context: RequestContext,
    k: int,
    oversample: int,
) -> list[int]:
    dims = len(vector)
    if is_sqlite(session):
        parts = (context.mandate_id, GLOBAL_PARTITION)
        return await nearest(session, vector, model, parts, k, oversample)
    await session.execute(text("SET LOCAL hnsw.iterative_scan = relaxed_order"))
    await session.execute(text(f"SET LOCAL hnsw.ef_search = {max(40, min(k, 1000))}"))
    # Literal dimension: PostgreSQL only uses the partial HNSW index of this dimension then.
    rows = await session.execute(
        text(
            f"SELECT id FROM knowledge_chunks WHERE embedding_dims = {int(dims)} "
            "AND embedding_model = :model AND (mandate_id = :mine OR scope = 'global') "
            f"ORDER BY embedding::vector({int(dims)}) <=> CAST(:v AS vector({int(dims)})) "
            "LIMIT :k"
        ),
        {"v": json.dumps(vector), "k": k, "mine": context.mandate_id, "model": model},
    )
    return [row[0] for row in rows]
