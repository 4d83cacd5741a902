"""The lexical retrieval leg, per dialect: plan the terms from their document frequencies, then
rank by BM25 within the caller's visible files.

- SQLite: dfs from `knowledge_chunks_vocab` (fts5vocab over the FTS5 index); FTS5's own
  `bm25()` ranks the matches (`ORDER BY rank LIMIT`, inside FTS5), and only the best few meet
  the chunk and file rows for the visibility filter.
- PostgreSQL: dfs, document counts and lengths from `knowledge_term_stats`, kept by a trigger
  per partition (the mandate, or `global`), so IDF reflects what the caller's tenant holds. The
  GIN index finds candidates; BM25 is computed in SQL over the tsvectors (tf = positions) of
  the best of them by a cheap score (lexical_postgres.py), each query term scoring its best
  matching word.
"""

from __future__ import annotations

from sqlalchemy import literal_column, select, text
from sqlalchemy.ext.asyncio import AsyncSession

from agentur.context import RequestContext
from agentur.knowledge.chunk_store import is_sqlite
from agentur.knowledge.lexical import query_terms_by_word
from agentur.knowledge.lexical_plan import LexicalLimits, LexicalPlan, make_plan
from agentur.knowledge.lexical_postgres import WordPairs, rank_postgres, word_pairs
from agentur.knowledge.ranked_candidates import rank_visible
from agentur.knowledge.search_legs import FTS, SearchFilters
from agentur.knowledge.term_stats import term_stats
from agentur.storage.models import File
from agentur.storage.models.knowledge import ContentChunk

FTS_OVERSAMPLE = 2  # FTS5 matches ranked per wanted hit before the visibility filter


async def lexical_leg(
    session: AsyncSession,
    query: str,
    language: str,
    context: RequestContext,
    filters: SearchFilters,
    limit: int,
    limits: LexicalLimits,
) -> list[int]:
    """Chunk ids, best first. `limits.budget`: postings one pass may touch (bounds the work);
    `rescored` and `checked` (PostgreSQL): see lexical_postgres.py."""
    by_word = query_terms_by_word(query, language)
    terms = [(term, is_prefix) for term, is_prefix, _ in by_word]
    if not terms:
        return []
    sqlite = is_sqlite(session)
    stats = await term_stats(session, terms, context, sqlite)
    budget = limits.budget
    plan = make_plan(terms, stats.exact, stats.expansions, budget, stats.prefix_postings)
    if not plan.groups:
        return []

    async def rank(all_groups: bool, pairs: WordPairs | None = None) -> list[int]:
        if sqlite:
            return await _rank_sqlite(session, plan, all_groups, context, filters, limit)
        return await rank_postgres(
            session,
            plan,
            all_groups,
            context,
            filters,
            limit,
            limits,
            stats.documents,
            stats.length,
            pairs,
        )

    paired: list[int] = []
    if not sqlite and sum(g.postings for g in plan.groups) > budget:
        # More postings than a pass may read: chunks matching two of the query's words first
        # (the GIN index intersects their postings, so a chunk holding one word alone is never
        # read); the words one by one fill up when that finds fewer than `limit`.
        pairs = word_pairs(plan, {term: word for term, _, word in by_word})
        if pairs.pairs:
            paired = await rank(False, pairs)
        if len(paired) >= limit:
            return paired
    found = await rank(False)
    if plan.narrowed and len(found) < limit:  # filters ate the rare terms' rows: every term
        found = await rank(True)
    return _merged(paired, found, limit)


def _merged(first: list[int], then: list[int], limit: int) -> list[int]:
    seen = set(first)
    return (first + [chunk_id for chunk_id in then if chunk_id not in seen])[:limit]


async def _rank_sqlite(
    session: AsyncSession,
    plan: LexicalPlan,
    all_groups: bool,
    context: RequestContext,
    filters: SearchFilters,
    limit: int,
) -> list[int]:
    phrases: dict[str, None] = {}  # ordered set
    for group in plan.chosen(all_groups=all_groups):
        if group.complete_prefix:
            phrases[f'"{group.term}"*'] = None
        else:
            phrases.update((f'"{lexeme}"', None) for lexeme in group.lexemes)
    match = " OR ".join(phrases)
    # FTS5 ranks its own matches (`ORDER BY rank LIMIT`, bm25 without a join per match); only
    # the best few meet the chunk and file rows for the visibility filter. When the filter
    # leaves too few, every match is ranked.
    asked = limit * FTS_OVERSAMPLE
    found, complete = await _rank_fts(session, match, context, filters, limit, asked)
    if len(found) < limit and not complete:
        found, _ = await _rank_fts(session, match, context, filters, limit, None)
    return found


async def _rank_fts(
    session: AsyncSession,
    match: str,
    context: RequestContext,
    filters: SearchFilters,
    limit: int,
    asked: int | None,
) -> tuple[list[int], bool]:
    rank = literal_column("rank")
    matches = (
        select(FTS.c.rowid.label("id"), rank.label("score"))
        .where(text("knowledge_chunks_fts MATCH :fts_query").bindparams(fts_query=match))
        .order_by(rank)
        .limit(asked)
        .cte("matches")
        .prefix_with("MATERIALIZED")
    )
    ranked = (
        select(ContentChunk.id, matches.c.score)
        .select_from(matches)
        .join(ContentChunk, ContentChunk.id == matches.c.id)
        .join(File, File.id == ContentChunk.file_id)
        .where(*filters.conditions(context))
        .order_by(matches.c.score, ContentChunk.id)
        .limit(limit)
        .subquery("ranked")
    )
    return await rank_visible(session, ranked, matches, asked or 0)
