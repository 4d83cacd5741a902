"""Hybrid search: lexical + vector legs fused by reciprocal rank, lexical-only when no
vector can be had. The result says which legs ran and why one did not."""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass, field

from sqlalchemy import select
from sqlalchemy.ext.asyncio import AsyncConnection, AsyncSession

from agentur.context import RequestContext
from agentur.errors import InvalidInputError
from agentur.knowledge.chunk_store import is_sqlite
from agentur.knowledge.embedding import Embedder, EmbeddingUnavailable
from agentur.knowledge.lexical import detect_language
from agentur.knowledge.lexical_leg import lexical_leg
from agentur.knowledge.lexical_plan import LexicalLimits
from agentur.knowledge.search_legs import EfSearch, SearchFilters, vector_leg
from agentur.knowledge.settings import KnowledgeSettings
from agentur.observability import metrics
from agentur.storage.database import connect_if_idle
from agentur.storage.models import File
from agentur.storage.models.knowledge import ContentChunk

logger = logging.getLogger(__name__)

MAX_QUERY_CHARS = 2_000
LEXICAL, VECTOR = "lexical", "vector"


@dataclass(frozen=True, slots=True)
class SearchHit:
    chunk_id: int
    file_id: str
    file_name: str
    scope: str
    text: str
    heading_path: list[str]
    content_type: str
    page: int | None
    start: int
    end: int
    score: float
    legs: list[str]


@dataclass(slots=True)
class _VectorRanking:
    vector: list[float] | None = None
    model: str | None = None
    ids: list[int] | None = None  # None: not ranked (yet)
    error: str | None = None  # why the leg did not run


@dataclass(frozen=True, slots=True)
class SearchResult:
    hits: list[SearchHit]
    legs: list[str]  # the legs that ran
    vector_error: str | None = None
    embedding_model: str | None = None
    extras: dict[str, object] = field(default_factory=dict)


def fuse(rankings: dict[str, list[int]], k: int) -> list[tuple[int, float, list[str]]]:
    """Reciprocal rank fusion: score = Σ over legs of 1 / (k + rank), rank starting at 1."""
    scores: dict[int, float] = {}
    legs: dict[int, list[str]] = {}
    for leg, ids in rankings.items():
        for rank, chunk_id in enumerate(ids, start=1):
            scores[chunk_id] = scores.get(chunk_id, 0.0) + 1.0 / (k + rank)
            legs.setdefault(chunk_id, []).append(leg)
    ordered = sorted(scores, key=lambda chunk_id: (-scores[chunk_id], chunk_id))
    return [(chunk_id, scores[chunk_id], legs[chunk_id]) for chunk_id in ordered]


class KnowledgeSearch:
    def __init__(self, embedder: Embedder, settings: KnowledgeSettings) -> None:
        self.embedder = embedder
        self.settings = settings

    async def search(
        self,
        session: AsyncSession,
        query: str,
        context: RequestContext,
        *,
        limit: int = 10,
        filters: SearchFilters | None = None,
        workflow_id: str | None = None,
        query_vector: list[float] | None = None,
        legs: tuple[str, ...] = (LEXICAL, VECTOR),
    ) -> SearchResult:
        with metrics.search_seconds.time():
            return await self._search(
                session, query, context, limit, filters, workflow_id, query_vector, legs
            )

    async def _search(
        self,
        session: AsyncSession,
        query: str,
        context: RequestContext,
        limit: int,
        filters: SearchFilters | None,
        workflow_id: str | None,
        query_vector: list[float] | None,
        legs: tuple[str, ...],
    ) -> SearchResult:
        query = query.strip()
        if not query:
            raise InvalidInputError("the search query is empty")
        if len(query) > MAX_QUERY_CHARS:
            raise InvalidInputError(f"the search query is longer than {MAX_QUERY_CHARS} characters")
        if not 1 <= limit <= self.settings.knowledge_max_search_limit:
            raise InvalidInputError(
                f"limit must be between 1 and {self.settings.knowledge_max_search_limit}"
            )
        filters = filters or SearchFilters()
        candidates = max(self.settings.knowledge_search_candidates, limit)
        found = _VectorRanking()
        if VECTOR in legs:
            # First, before the search takes a connection: embedding the query goes through
            # the gateway, whose bookkeeping (budget hold, ledger row) takes connections of its
            # own, and a search holding one while waiting for those could starve the pool.
            found = await self._embed(query, query_vector, context, workflow_id)
        rankings: dict[str, list[int]] = {}
        async with self._spare_connection(session, found, legs) as spare:
            beside: asyncio.Task[list[int]] | None = None
            if spare is not None and found.vector is not None:
                # The vector leg on a connection of its own while the lexical leg runs.
                beside = asyncio.create_task(
                    self._vector_leg(spare, found.vector, found.model, context, filters, candidates)
                )
            try:
                lexical = None
                if LEXICAL in legs:
                    language = detect_language(query, context.language)
                    lexical = await lexical_leg(
                        session,
                        query,
                        language,
                        context,
                        filters,
                        candidates,
                        LexicalLimits(
                            self.settings.knowledge_lexical_budget,
                            self.settings.knowledge_lexical_rescored,
                            self.settings.knowledge_lexical_checked,
                        ),
                    )
                if beside is not None:
                    found.ids = await beside
                elif found.vector is not None:
                    found.ids = await self._vector_leg(
                        session, found.vector, found.model, context, filters, candidates
                    )
            finally:
                if beside is not None and not beside.done():
                    # Ended before the spare connection goes back to the pool.
                    beside.cancel()
                    with contextlib.suppress(asyncio.CancelledError):
                        await beside
        if found.ids is not None:
            rankings[VECTOR] = found.ids
        if lexical is not None:
            rankings[LEXICAL] = lexical
        fused = fuse(rankings, self.settings.knowledge_rrf_k)[:limit]
        hits = await self._load(session, fused, context, filters)
        return SearchResult(hits, list(rankings), found.error, found.model)

    @asynccontextmanager
    async def _spare_connection(
        self, session: AsyncSession, found: _VectorRanking, legs: tuple[str, ...]
    ) -> AsyncIterator[AsyncConnection | None]:
        """A second connection for the vector leg (PostgreSQL, both legs to run): only one the
        pool has idle at this moment, never one to wait for — concurrent searches never wait
        for each other's second connection, and under load the legs share the first."""
        if (
            found.vector is None
            or LEXICAL not in legs
            or not self.settings.knowledge_search_concurrent_legs
            or is_sqlite(session)
        ):
            yield None
            return
        await session.connection()  # the search's own first, so the spare is never waited for
        async with connect_if_idle(session.bind) as spare:
            yield spare

    async def _embed(
        self,
        query: str,
        query_vector: list[float] | None,
        context: RequestContext,
        workflow_id: str | None,
    ) -> _VectorRanking:
        """The query vector (None with the reason when no embedding can be had)."""
        if query_vector is not None:
            return _VectorRanking(vector=query_vector, model=self.embedder.model)
        try:
            embedded = await self.embedder.embed_query(query, context, workflow_id=workflow_id)
        except EmbeddingUnavailable as error:
            logger.info("vector search skipped: %s", error)
            return _VectorRanking(error=str(error))
        return _VectorRanking(vector=embedded.vectors[0], model=embedded.model)

    async def _vector_leg(
        self,
        on: AsyncSession | AsyncConnection,
        vector: list[float],
        model: str,
        context: RequestContext,
        filters: SearchFilters,
        candidates: int,
    ) -> list[int]:
        if isinstance(on, AsyncConnection):  # a spare connection of its own
            # Autocommit: one statement needs no BEGIN and ROLLBACK round trips.
            await on.execution_options(isolation_level="AUTOCOMMIT")
            async with AsyncSession(bind=on) as own:
                return await self._vector_leg(own, vector, model, context, filters, candidates)
        return await vector_leg(
            on,
            vector,
            model,
            context,
            filters,
            candidates,
            self.settings.knowledge_vector_oversample,
            EfSearch(
                self.settings.knowledge_vector_ef_search,
                self.settings.knowledge_vector_ef_search_large,
                self.settings.knowledge_vector_large_table,
            ),
        )

    async def _load(
        self,
        session: AsyncSession,
        fused: list[tuple[int, float, list[str]]],
        context: RequestContext,
        filters: SearchFilters,
    ) -> list[SearchHit]:
        if not fused:
            return []
        rows = await session.execute(
            select(ContentChunk, File.name, File.scope)
            .join(File, File.id == ContentChunk.file_id)
            .where(ContentChunk.id.in_([chunk_id for chunk_id, _, _ in fused]))
            .where(*filters.conditions(context))  # again: never trust a leg alone
        )
        found = {chunk.id: (chunk, name, scope) for chunk, name, scope in rows}
        hits = []
        for chunk_id, score, legs in fused:
            if chunk_id not in found:
                continue
            chunk, name, scope = found[chunk_id]
            hits.append(
                SearchHit(
                    chunk_id=chunk.id,
                    file_id=chunk.file_id,
                    file_name=name,
                    scope=scope,
                    text=chunk.text,
                    heading_path=list(chunk.heading_path or []),
                    content_type=chunk.content_type,
                    page=chunk.page,
                    start=chunk.start_offset,
                    end=chunk.end_offset,
                    score=score,
                    legs=legs,
                )
            )
        return hits
