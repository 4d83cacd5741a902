"""The two retrieval legs, per dialect, each already filtered by tenant, scope and filters.

Visibility is the workspace's own rule: chunks are joined to their file and filtered with
`visible_files(context)`, so search can never show what the file API would answer 404 for.
"""

from __future__ import annotations

import json
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from functools import lru_cache

from sqlalchemy import ColumnElement, and_, column, table, text
from sqlalchemy.dialects.postgresql.base import PGDialect
from sqlalchemy.ext.asyncio import AsyncSession

from agentur.context import RequestContext
from agentur.knowledge.chunk_store import GLOBAL_PARTITION, is_sqlite
from agentur.knowledge.sqlite_vectors import nearest
from agentur.storage.models import File
from agentur.storage.models.knowledge import ContentChunk
from agentur.workspace.scopes import visible_files

# Vector rounds: widen while the filters left too few hits and the index has more.
KNN_GROWTH = 4
KNN_MAX = 4_000
# A connection that chose its `hnsw.ef_search` from the table's size looks again after this.
EF_RECHECK_SECONDS = 60.0

FTS = table("knowledge_chunks_fts", column("rowid"))
_NAMED_BINDS = PGDialect(paramstyle="named")  # `:name` binds, as `text()` reads them


@dataclass(frozen=True, slots=True)
class EfSearch:
    """PostgreSQL: the HNSW candidate list (`hnsw.ef_search`) by the table's size. A large
    table needs a longer list for the same recall; on a small one a long list makes the
    planner prefer an exact scan, which reads every vector."""

    small: int = 200
    large: int = 400
    large_from: int = 500_000  # chunks in the table (planner estimate) from which `large` holds

    def at_least(self, k: int) -> EfSearch:
        """Both lists at least `k` long (a scan returns at most ef_search rows per round) and
        within pgvector's limit."""
        small, large = (max(k, min(ef, 1000)) for ef in (self.small, self.large))
        return EfSearch(small, large, self.large_from)


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

    def sql(self, context: RequestContext) -> tuple[str, dict[str, object]]:
        """`conditions` as SQL over `knowledge_chunks` and `files` with named binds, for a
        statement of fixed text (see lexical_postgres.py), and the binds' values. Compiled
        once per filters and caller (both legs of a search, and the caller's next search)."""
        frozen = SearchFilters(*(None if v is None else tuple(v) for v in self._values()))
        sql, params = _compiled(frozen, context)
        return sql, dict(params)

    def _values(self) -> tuple[Sequence[str] | None, ...]:
        return (self.scopes, self.file_ids, self.content_types, self.exclude_file_ids)


@lru_cache(maxsize=256)
def _compiled(
    filters: SearchFilters, context: RequestContext
) -> tuple[str, tuple[tuple[str, object], ...]]:
    compiled = and_(*filters.conditions(context)).compile(
        dialect=_NAMED_BINDS, compile_kwargs={"render_postcompile": True}
    )
    # Parenthesised: `x AND {sql}` must not bind to an OR inside.
    return f"({compiled})", tuple(compiled.params.items())


async def vector_leg(
    session: AsyncSession,
    vector: list[float],
    model: str,
    context: RequestContext,
    filters: SearchFilters,
    limit: int,
    oversample: int = 3,
    ef_search: EfSearch = EfSearch(),
) -> list[int]:
    """Nearest chunks the caller may see. The index answers within the caller's tenant
    partition plus global (HNSW / bit KNN) and the visibility filter runs in the same
    statement; when it leaves fewer than `limit` and the index has more, the candidate set
    grows. `oversample` (SQLite): bit-index candidates per wanted hit that exact cosine ranks;
    `ef_search` (PostgreSQL): HNSW candidate list by table size (at least `limit`)."""
    sqlite = is_sqlite(session)
    # SQLite takes the filter as expressions, PostgreSQL as precompiled text (_hnsw).
    conditions = filters.conditions(context) if sqlite else []
    k = limit
    while True:
        if sqlite:
            parts = (context.mandate_id, GLOBAL_PARTITION)
            found, exhausted = await nearest(
                session, vector, model, parts, conditions, k, oversample
            )
        else:
            found, exhausted = await _hnsw(session, vector, model, context, filters, k, ef_search)
        if len(found) >= limit or exhausted or k >= KNN_MAX:
            return found[:limit]
        k = min(k * KNN_GROWTH, KNN_MAX)


# {dims}: a literal, so PostgreSQL uses the partial HNSW index of that dimension;
# {visible}: the caller's filter (SearchFilters.sql).
_HNSW = """
SELECT knowledge_chunks.id
FROM knowledge_chunks JOIN files ON files.id = knowledge_chunks.file_id
WHERE knowledge_chunks.embedding_dims = {dims} AND knowledge_chunks.embedding_model = :model
  AND (knowledge_chunks.mandate_id = :mine OR knowledge_chunks.scope = 'global') AND {visible}
ORDER BY knowledge_chunks.embedding::vector({dims}) <=> CAST(:vector AS vector({dims}))
LIMIT :k
"""


async def _hnsw(
    session: AsyncSession,
    vector: list[float],
    model: str,
    context: RequestContext,
    filters: SearchFilters,
    k: int,
    ef_search: EfSearch,
) -> tuple[list[int], bool]:
    """PostgreSQL: HNSW with pgvector's iterative scan, which keeps walking the graph until `k`
    rows pass the filters (the tenant partition and the caller's visibility, checked per row
    as the index yields it) or `hnsw.max_scan_tuples` is reached: either way no more rounds.
    The statement's text is fixed per dimension and filter shape: compiled and prepared once."""
    dims = int(len(vector))
    await _hnsw_settings(session, ef_search.at_least(k))
    visible, params = filters.sql(context)
    params.update(model=model, mine=context.mandate_id, vector=json.dumps(vector), k=k)
    rows = await session.execute(text(_HNSW.format(dims=dims, visible=visible)), params)
    found = [int(chunk_id) for chunk_id in rows.scalars()]
    return found, len(found) < k


# ef_search from the table's planner estimate of its rows (pg_class.reltuples, -1 before the
# first ANALYZE): read in the same round trip as the settings.
_HNSW_SETTINGS = text(
    """
SELECT set_config('hnsw.iterative_scan', 'relaxed_order', :local),
    set_config('hnsw.ef_search',
        CASE WHEN greatest(c.reltuples, 0) >= :large_from THEN :large ELSE :small END, :local)
FROM pg_class AS c WHERE c.oid = CAST('knowledge_chunks' AS regclass)
"""
)


async def _hnsw_settings(session: AsyncSession, ef: EfSearch) -> None:
    """Iterative scan and `ef_search`, in one round trip. In a transaction they hold for it
    only. On an autocommit connection (the vector leg's own, search.py) a local setting would
    end with the statement, so they are set for the connection, which remembers them: its
    next searches skip the round trip for EF_RECHECK_SECONDS (the table's size changes slowly)."""
    connection = await session.connection()
    options = connection.sync_connection.get_execution_options()  # type: ignore[union-attr]
    autocommit = options.get("isolation_level") == "AUTOCOMMIT"
    now = time.monotonic()
    if autocommit:
        chosen, at = connection.info.get("hnsw.ef_search", (None, 0.0))
        if chosen == ef and now - at < EF_RECHECK_SECONDS:
            return
    await session.execute(
        _HNSW_SETTINGS,
        {
            "small": str(ef.small),
            "large": str(ef.large),
            "large_from": float(ef.large_from),
            "local": not autocommit,
        },
    )
    if autocommit:
        connection.info["hnsw.ef_search"] = (ef, now)
