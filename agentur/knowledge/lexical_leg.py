"""The lexical retrieval leg, per dialect: plan the terms from their document frequencies, then
rank by BM25 within the caller's visible files.

- SQLite: dfs from `knowledge_chunks_vocab` (fts5vocab over the FTS5 index); FTS5's own
  `bm25()` ranks the matches.
- PostgreSQL: dfs, document counts and lengths from `knowledge_term_stats`, kept by a trigger
  per partition (the mandate, or `global`), so IDF reflects what the caller's tenant holds. The
  GIN index finds candidates; BM25 is computed in SQL over their tsvectors (tf = positions),
  each query term scoring its best matching word.
"""

from __future__ import annotations

from sqlalchemy import ARRAY, Float, Integer, Text, cast, column, func, literal_column, select, text
from sqlalchemy.ext.asyncio import AsyncSession

from agentur.context import RequestContext
from agentur.knowledge.chunk_store import GLOBAL_PARTITION, is_sqlite
from agentur.knowledge.lexical import query_terms
from agentur.knowledge.lexical_plan import (
    BM25_B,
    BM25_K1,
    MAX_EXPANSIONS,
    LexicalPlan,
    idf,
    make_plan,
)
from agentur.knowledge.search_legs import FTS, SearchFilters
from agentur.storage.models import File
from agentur.storage.models.knowledge import ContentChunk

PREFIX_END = "\U0010ffff"  # sorts after every character: [p, p + END) is "starts with p"


async def lexical_leg(
    session: AsyncSession,
    query: str,
    language: str,
    context: RequestContext,
    filters: SearchFilters,
    limit: int,
    budget: int,
) -> list[int]:
    """Chunk ids, best first. `budget`: postings one pass may touch (bounds the work)."""
    terms = query_terms(query, language)
    if not terms:
        return []
    sqlite = is_sqlite(session)
    exact, expansions, prefixes, documents, length = await _term_stats(
        session, terms, context, sqlite
    )
    plan = make_plan(terms, exact, expansions, budget, prefixes)
    if not plan.groups:
        return []
    rank = _rank_sqlite if sqlite else _rank_postgres
    found = await rank(session, plan, False, context, filters, limit, budget, documents, length)
    if plan.narrowed and len(found) < limit:  # filters ate the rare terms' rows: every term
        found = await rank(session, plan, True, context, filters, limit, budget, documents, length)
    return found


async def _term_stats(
    session: AsyncSession,
    terms: list[tuple[str, bool]],
    context: RequestContext,
    sqlite: bool,
) -> tuple[dict[str, int], dict[str, list[tuple[str, int]]], dict[str, int], int, int]:
    """(df per query term, prefix expansions by df, summed df per prefix, documents, total
    length) in one round trip."""
    if sqlite:
        source = "(SELECT term, doc FROM knowledge_chunks_vocab WHERE {cond})"
    else:
        source = (
            "(SELECT term, sum(df) AS doc FROM knowledge_term_stats "
            "WHERE part IN (:mine, :everyone) AND {cond} GROUP BY term)"
        )
    parts: list[str] = []
    params: dict[str, object] = {"mine": context.mandate_id, "everyone": GLOBAL_PARTITION}
    for i, (term, is_prefix) in enumerate(terms):
        params[f"t{i}"] = term
        parts.append(
            f"SELECT {i} AS q, 0 AS x, term, doc FROM "
            + source.format(cond=f"term = :t{i}")
            + " AS e"
        )
        if is_prefix:
            params[f"h{i}"] = term + PREFIX_END
            parts.append(
                f"SELECT {i} AS q, 2 AS x, '' AS term, coalesce(sum(doc), 0) AS doc FROM "
                + source.format(cond=f"term > :t{i} AND term < :h{i}")
                + " AS a"
            )
            parts.append(
                f"SELECT * FROM (SELECT {i} AS q, 1 AS x, term, doc FROM "
                + source.format(cond=f"term > :t{i} AND term < :h{i}")
                + f" AS p ORDER BY doc DESC, term LIMIT {MAX_EXPANSIONS}) AS p{i}"
            )
    if not sqlite:
        parts.append(
            "SELECT -1 AS q, 0 AS x, '' AS term, coalesce(sum(df), 0) AS doc "
            "FROM knowledge_term_stats WHERE part IN (:mine, :everyone) AND term = ''"
        )
        parts.append(
            "SELECT -2 AS q, 0 AS x, '' AS term, coalesce(sum(total), 0) AS doc "
            "FROM knowledge_term_stats WHERE part IN (:mine, :everyone) AND term = ''"
        )
    rows = (await session.execute(text(" UNION ALL ".join(parts)), params)).all()
    exact: dict[str, int] = {}
    expansions: dict[str, list[tuple[str, int]]] = {}
    prefix_postings: dict[str, int] = {}
    documents = length = 0
    for q, x, term, doc in rows:
        if q == -1:
            documents = int(doc)
        elif q == -2:
            length = int(doc)
        elif x == 0:
            exact[terms[q][0]] = int(doc)
        elif x == 2:
            prefix_postings[terms[q][0]] = int(doc)
        else:
            expansions.setdefault(terms[q][0], []).append((term, int(doc)))
    for found in expansions.values():
        found.sort(key=lambda pair: (-pair[1], pair[0]))
    return exact, expansions, prefix_postings, documents, length


async def _rank_sqlite(
    session: AsyncSession,
    plan: LexicalPlan,
    all_groups: bool,
    context: RequestContext,
    filters: SearchFilters,
    limit: int,
    budget: int,
    documents: int,
    length: int,
) -> list[int]:
    phrases: dict[str, None] = {}  # ordered set
    for group in plan.chosen(all_groups=all_groups):
        if group.complete_prefix:
            phrases[f'"{group.term}"*'] = None
        else:
            phrases.update((f'"{lexeme}"', None) for lexeme in group.lexemes)
    match = " OR ".join(phrases)
    statement = (
        select(ContentChunk.id)
        .select_from(FTS)
        .join(ContentChunk, ContentChunk.id == FTS.c.rowid)
        .join(File, File.id == ContentChunk.file_id)
        .where(text("knowledge_chunks_fts MATCH :fts_query").bindparams(fts_query=match))
        .where(*filters.conditions(context))
        .order_by(literal_column("bm25(knowledge_chunks_fts)"))
        .limit(limit)
    )
    return list((await session.execute(statement)).scalars())


async def _rank_postgres(
    session: AsyncSession,
    plan: LexicalPlan,
    all_groups: bool,
    context: RequestContext,
    filters: SearchFilters,
    limit: int,
    budget: int,
    documents: int,
    length: int,
) -> list[int]:
    lexemes = plan.lexemes(all_groups=all_groups)
    # Scoring uses every group (a common term still adds its share); candidates come from
    # `lexemes` only.
    weights = [
        (lexeme, number, idf(df, max(documents, df)))
        for number, group in enumerate(plan.groups)
        for lexeme, df in group.lexemes.items()
    ]
    average = max(length / documents, 1.0) if documents else 1.0
    match = " | ".join("'" + lexeme.replace("'", "''") + "'" for lexeme in lexemes)
    # Only the query's words of each candidate, with their positions: marking them (setweight)
    # and keeping the marked ones (ts_filter) is one pass over the tsvector, where unnesting
    # all of it would feed every word of every candidate into the join.
    stored = literal_column("knowledge_chunks.tsv")
    only_query_words = func.ts_filter(
        func.setweight(stored, literal_column("'A'"), cast([w[0] for w in weights], ARRAY(Text))),
        literal_column("'{a}'"),
    )
    candidates = (
        select(
            ContentChunk.id.label("id"),
            only_query_words.label("tsv"),
            func.length(stored).label("dl"),
        )
        .join(File, File.id == ContentChunk.file_id)
        .where(
            text("knowledge_chunks.tsv @@ to_tsquery('simple', :ts_match)").bindparams(
                ts_match=match
            )
        )
        .where(*filters.conditions(context))
        .limit(budget)
        .cte("candidates")
    )
    words = (
        func.unnest(candidates.c.tsv)
        .table_valued(column("lexeme", Text), column("positions", ARRAY(Integer)), name="u")
        .render_derived()
        .lateral()
    )
    query_words = (
        func.unnest(
            cast([w[0] for w in weights], ARRAY(Text)),
            cast([w[1] for w in weights], ARRAY(Integer)),
            cast([w[2] for w in weights], ARRAY(Float)),
        )
        .table_valued(
            column("lexeme", Text), column("grp", Integer), column("idf", Float), name="q"
        )
        .render_derived()
    )
    tf = func.coalesce(func.array_length(words.c.positions, 1), 1)
    norm = BM25_K1 * (1 - BM25_B + BM25_B * candidates.c.dl / average)
    per_term = (
        select(
            candidates.c.id,
            func.max(query_words.c.idf * tf * (BM25_K1 + 1) / (tf + norm)).label("score"),
        )
        .select_from(candidates)
        .join(words, literal_column("true"))
        .join(query_words, query_words.c.lexeme == words.c.lexeme)
        .group_by(candidates.c.id, query_words.c.grp)
        .subquery("per_term")
    )
    statement = (
        select(per_term.c.id)
        .group_by(per_term.c.id)
        .order_by(func.sum(per_term.c.score).desc(), per_term.c.id)
        .limit(limit)
    )
    return list((await session.execute(statement)).scalars())
