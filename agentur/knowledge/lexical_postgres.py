"""BM25 on PostgreSQL in three steps, so a query's cost does not grow with its matches' number.

1. Candidates from `knowledge_postings` (migration 0018): for each indexed word of the query,
   the postings where it weighs most (its BM25 share in the chunk: term frequency, chunk
   length), at most `budget / words` of them, from the caller's tenant partitions (its mandate
   and `global`, part of the postings' key). The index alone answers: no chunk row is read.
   Each candidate's score is BM25 over the words whose postings found it (each query term
   scoring its best word); a word whose list was cut before the chunk adds nothing yet.
2. The caller's visibility and filters (a join to `files` per row) for the best `checked` of
   them by that score only: joining every candidate's file up front read all the tenant's
   files (11–20 ms of 64–94 at 1M chunks). When fewer than the leg's limit pass and some were
   never checked, the statement runs again checking them all.
3. Full BM25 (tf = positions, every group of the query) for the best `rescored` visible ones:
   a tsvector is read out of line and filtered for each (about 10 µs a chunk), which adds the
   words whose lists were cut before the chunk.

What this gives up: a chunk that holds several common words but is among the heaviest
postings of none of them is never a candidate (a rare word's list is complete: it has fewer
postings than its share). `bench/search_scale.py` prints how much of the exhaustive BM25 top 10
the leg returns.

The steps are one statement of fixed text: the query's words, groups and IDFs come as arrays,
the caller's visibility as the workspace's own condition compiled to SQL. SQLAlchemy then
compiles nothing per query (building the equivalent Core statement cost ~4 ms of CPU per
search) and asyncpg reuses one prepared statement per connection and filter shape.
"""

from __future__ import annotations

from sqlalchemy import text
from sqlalchemy.ext.asyncio import AsyncSession

from agentur.context import RequestContext
from agentur.knowledge.lexical_plan import BM25_B, BM25_K1, LexicalLimits, LexicalPlan, idf
from agentur.knowledge.search_legs import SearchFilters

ALL_CANDIDATES = 2**31 - 1  # `checked` when every candidate's visibility is checked

# {visible}: the caller's filter over `knowledge_chunks` and `files` (named binds).
# BM25 length normalisation: K1 · (1 − b + b · dl / average dl). A partition is keyed as
# `knowledge_posting_key(mandate, scope, word)` keys it: the caller's mandate, and `global`.
_CANDIDATES = """
WITH k AS (
    SELECT CAST(:k1 AS float8) AS k1, CAST(:b AS float8) AS b, CAST(:average AS float8) AS average
),
words AS (
    SELECT * FROM unnest(CAST(:words AS text[]), CAST(:groups AS int[]), CAST(:idfs AS float8[]))
        AS w(lexeme, grp, idf)
),
scanned AS (
    SELECT p.chunk_id AS id, p.tf, p.dl, s.lexeme
    FROM unnest(CAST(:scan AS text[])) AS s(lexeme)
    CROSS JOIN (VALUES (CAST(:mine AS text), 'mandate'), ('', 'global')) AS part(mandate, scope)
    CROSS JOIN LATERAL (
        SELECT chunk_id, tf, dl FROM knowledge_postings
        WHERE term_key = knowledge_posting_key(part.mandate, part.scope, s.lexeme)
        ORDER BY impact DESC, chunk_id
        LIMIT :per_word
    ) AS p
),
per_group AS (
    SELECT m.id, w.grp, min(m.dl) AS dl,
        max(w.idf * m.tf * (k1 + 1) / (m.tf + k1 * (1 - b + b * m.dl / average))) AS score
    FROM scanned AS m JOIN words AS w ON w.lexeme = m.lexeme CROSS JOIN k
    GROUP BY m.id, w.grp
),
cheap AS (
    SELECT id, min(dl) AS dl, sum(score) AS score
    FROM per_group GROUP BY id
    ORDER BY score DESC, id
    LIMIT :checked
),
"""
# Full BM25 of the best `rescored` visible candidates from their tsvectors.
_RESCORED = """
shown AS (
    SELECT cheap.id, cheap.dl, knowledge_chunks.tsv
    FROM cheap
    JOIN knowledge_chunks ON knowledge_chunks.id = cheap.id
    JOIN files ON files.id = knowledge_chunks.file_id
    WHERE {visible}
    ORDER BY cheap.score DESC, cheap.id
    LIMIT :rescored
),
best AS (
    SELECT id, dl, ts_filter(setweight(tsv, 'A', CAST(:words AS text[])), '{{a}}') AS tsv
    FROM shown
),
per_term AS (
    SELECT best.id, w.grp,
        max(w.idf * f.tf * (k1 + 1) / (f.tf + k1 * (1 - b + b * best.dl / average))) AS score
    FROM best CROSS JOIN k
    CROSS JOIN LATERAL unnest(best.tsv) AS u(lexeme, positions, weights)
    CROSS JOIN LATERAL (SELECT coalesce(array_length(u.positions, 1), 1) AS tf) AS f
    JOIN words AS w ON w.lexeme = u.lexeme
    GROUP BY best.id, w.grp
),
ranked AS (
    SELECT id, sum(score) AS score FROM per_term GROUP BY id ORDER BY score DESC, id LIMIT :limit
)
"""
# The candidates' own BM25, for the best visible ones (`rescored` 0).
_AS_FOUND = """
ranked AS (
    SELECT cheap.id, cheap.score
    FROM cheap
    JOIN knowledge_chunks ON knowledge_chunks.id = cheap.id
    JOIN files ON files.id = knowledge_chunks.file_id
    WHERE {visible}
    ORDER BY cheap.score DESC, cheap.id
    LIMIT :limit
)
"""
_RESULT = """
SELECT id, score, false AS last FROM ranked
UNION ALL
SELECT NULL, count(*), true FROM cheap  -- last: how many candidates had their visibility checked
ORDER BY last, score DESC, id
"""


async def rank_postgres(
    session: AsyncSession,
    plan: LexicalPlan,
    context: RequestContext,
    filters: SearchFilters,
    limit: int,
    limits: LexicalLimits,
    documents: int,
    length: int,
) -> list[int]:
    """Chunk ids, best first. Every group of the plan finds candidates: a common word's
    postings are cut at its share of `limits.budget`, heaviest first. The caller's visibility
    and filters are checked for the best `limits.checked` candidates only; when fewer than
    `limit` pass and the cut left candidates unchecked, the statement runs again checking
    every candidate."""
    words = [
        (w, n, idf(df, max(documents, df)))
        for n, g in enumerate(plan.groups)
        for w, df in g.lexemes.items()
    ]
    # A word in two groups (a query word and its stem's expansion) is read once.
    scan = list(dict.fromkeys(w for w, _, _ in words))
    visible, params = filters.sql(context)
    params.update(
        scan=scan,
        words=[w[0] for w in words],
        groups=[w[1] for w in words],
        idfs=[w[2] for w in words],
        mine=context.mandate_id,
        per_word=max(limit, limits.budget // max(len(scan), 1)),
        rescored=max(limits.rescored, limit) if limits.rescored else 0,
        checked=max(limits.checked, limits.rescored, limit),
        limit=limit,
        k1=BM25_K1,
        b=BM25_B,
        average=max(length / documents, 1.0) if documents else 1.0,
    )
    tail = _RESCORED if limits.rescored else _AS_FOUND
    statement = (_CANDIDATES + tail + _RESULT).format(visible=visible)
    # term_stats.py turned parallel workers off for this transaction.
    rows = list(await session.execute(text(statement), params))
    found, checked = [int(row[0]) for row in rows[:-1]], int(rows[-1][1])
    if len(found) < limit and checked >= params["checked"]:
        # The filters dropped too many of the best: check every candidate (the budget bounds them).
        params["checked"] = ALL_CANDIDATES
        rows = list(await session.execute(text(statement), params))
        found = [int(row[0]) for row in rows[:-1]]
    return found
