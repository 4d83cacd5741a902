"""BM25 on PostgreSQL in two steps, so a query's cost does not grow with its matches' size.

1. Candidates from the GIN index, one scan per word of the term groups the plan chose
   (rarest group first, at most `budget` rows), already filtered by the caller's visibility.
   Each gets BM25 as if every word it matched occurred once: each group's best word's IDF,
   normalised by the chunk's length (`tsv_length`, on the narrow chunk row; migration 0015).
   No tsvector is read.
2. Full BM25 (tf = positions, every group of the query) for the best `rescored` of them only:
   a tsvector is read out of line and filtered for each (about 10 µs a chunk; the one-step
   ranking over 5,000 candidates cost 80 ms of CPU per query at 100k chunks).

A chunk the cheap score ranks below `rescored` would need repeats of its words, or common
words the plan left out, to reach the top; `bench/search_scale.py` prints how much of the full
BM25 top 10 the leg returns.
"""

from __future__ import annotations

from sqlalchemy import (
    ARRAY,
    CTE,
    ColumnElement,
    Float,
    Integer,
    Text,
    cast,
    column,
    func,
    literal_column,
    select,
    text,
    true,
)
from sqlalchemy.ext.asyncio import AsyncSession

from agentur.context import RequestContext
from agentur.knowledge.lexical_plan import BM25_B, BM25_K1, LexicalPlan, idf
from agentur.knowledge.search_legs import SearchFilters
from agentur.storage.models import File
from agentur.storage.models.knowledge import ContentChunk

TSV = literal_column("knowledge_chunks.tsv")
TSV_LENGTH = literal_column("knowledge_chunks.tsv_length")  # BM25 document length


async def rank_postgres(
    session: AsyncSession,
    plan: LexicalPlan,
    all_groups: bool,
    context: RequestContext,
    filters: SearchFilters,
    limit: int,
    budget: int,
    documents: int,
    length: int,
    rescored: int,
) -> list[int]:
    # Scoring uses every group (a common term still adds its share); candidates come from
    # the chosen groups only.
    weights = [
        (lexeme, number, idf(df, max(documents, df)))
        for number, group in enumerate(plan.groups)
        for lexeme, df in group.lexemes.items()
    ]
    chosen = [w for w in weights if w[1] < len(plan.chosen(all_groups=all_groups))]
    # One GIN scan per word of the chosen groups, rarest group first (when the budget cuts, it
    # cuts the commonest words' rows); the statement's shape does not depend on the query, so
    # it compiles once.
    wanted = (
        func.unnest(
            cast(["'" + w[0].replace("'", "''") + "'" for w in chosen], ARRAY(Text)),
            cast([w[1] for w in chosen], ARRAY(Integer)),
            cast([w[2] for w in chosen], ARRAY(Float)),
        )
        .table_valued(column("q", Text), column("grp", Integer), column("idf", Float), name="w")
        .render_derived()
    )
    scan = (
        select(ContentChunk.id.label("id"), TSV_LENGTH.label("dl"))
        .join(File, File.id == ContentChunk.file_id)
        .where(TSV.op("@@")(func.to_tsquery(literal_column("'simple'"), wanted.c.q)))
        .where(*filters.conditions(context))
        .lateral("scan")
    )
    matched = (
        select(scan.c.id, wanted.c.grp, wanted.c.idf, scan.c.dl)
        .select_from(wanted)
        .join(scan, true())
        .limit(budget)
        .subquery("matched")
    )
    per_group = (
        select(
            matched.c.id, func.max(matched.c.idf).label("idf"), func.min(matched.c.dl).label("dl")
        )
        .group_by(matched.c.id, matched.c.grp)
        .subquery("per_group")
    )
    # BM25 as if every matched word occurred once: IDF and length, no term frequency.
    dl = func.min(per_group.c.dl)
    once = func.sum(per_group.c.idf) * (BM25_K1 + 1) / (1 + _norm(dl, documents, length))
    cheap = (
        select(per_group.c.id, dl.label("dl"))
        .group_by(per_group.c.id)
        .order_by(once.desc(), per_group.c.id)
        .limit(max(rescored, limit))
        .cte("cheap")
    )
    best = (
        select(ContentChunk.id.label("id"), TSV.label("tsv"), cheap.c.dl)
        .join(cheap, cheap.c.id == ContentChunk.id)
        .cte("best")
    )
    # Parallel workers cost more to start than this query takes; the budget bounds its work.
    await session.execute(text("SET LOCAL max_parallel_workers_per_gather = 0"))
    return await _bm25(session, best, weights, limit, documents, length)


def _norm(dl: ColumnElement[float], documents: int, length: int) -> ColumnElement[float]:
    """BM25's length normalisation K1 · (1 − b + b · dl / average dl)."""
    average = max(length / documents, 1.0) if documents else 1.0
    return BM25_K1 * (1 - BM25_B + BM25_B * dl / average)


async def _bm25(
    session: AsyncSession,
    best: CTE,
    weights: list[tuple[str, int, float]],
    limit: int,
    documents: int,
    length: int,
) -> list[int]:
    # Only the query's words of each candidate, with their positions: marking them (setweight)
    # and keeping the marked ones (ts_filter) is one pass over the tsvector, where unnesting
    # all of it would feed every word of every candidate into the join.
    only_query_words = func.ts_filter(
        func.setweight(
            best.c.tsv, literal_column("'A'"), cast([w[0] for w in weights], ARRAY(Text))
        ),
        literal_column("'{a}'"),
    )
    candidates = select(
        best.c.id.label("id"),
        only_query_words.label("tsv"),
        best.c.dl,
    ).cte("candidates")
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
    norm = _norm(candidates.c.dl, documents, length)
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
