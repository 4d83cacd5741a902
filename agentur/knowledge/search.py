"""Hybrid search (K3): lexical + vector legs fused by reciprocal rank, lexical-only when no
vector can be had. The result says which legs ran and why one did not."""

from __future__ import annotations

import logging
from dataclasses import dataclass, field

from sqlalchemy import select
from sqlalchemy.ext.asyncio import AsyncSession

from agentur.context import RequestContext
from agentur.errors import InvalidInputError
from agentur.knowledge.embedding import Embedder, EmbeddingUnavailable
from agentur.knowledge.lexical import detect_language
from agentur.knowledge.lexical_leg import lexical_leg
from agentur.knowledge.search_legs import SearchFilters, vector_leg
from agentur.knowledge.settings import KnowledgeSettings
from agentur.observability import metrics
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
        rankings: dict[str, list[int]] = {}
        vector_error: str | None = None
        model: str | None = None
        if VECTOR in legs:
            try:
                if query_vector is None:
                    embedded = await self.embedder.embed_query(
                        query, context, workflow_id=workflow_id
                    )
                    query_vector, model = embedded.vectors[0], embedded.model
                else:
                    model = self.embedder.model
                rankings[VECTOR] = await vector_leg(
                    session,
                    query_vector,
                    model,
                    context,
                    filters,
                    candidates,
                    self.settings.knowledge_vector_oversample,
                    self.settings.knowledge_vector_ef_search,
                )
            except EmbeddingUnavailable as error:
                vector_error = str(error)
                logger.info("vector search skipped: %s", error)
        if LEXICAL in legs:
            language = detect_language(query, context.language)
            rankings[LEXICAL] = await lexical_leg(
                session,
                query,
                language,
                context,
                filters,
                candidates,
                self.settings.knowledge_lexical_budget,
                self.settings.knowledge_lexical_rescored,
            )
        fused = fuse(rankings, self.settings.knowledge_rrf_k)[:limit]
        hits = await self._load(session, fused, context, filters)
        return SearchResult(hits, list(rankings), vector_error, model)

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
