"""BM25 on PostgreSQL in three steps, so a query's cost does not grow with its matches' size.

1. Candidates from the GIN index, one scan per distinct word of the term groups the plan chose
   (rarest group first, at most `budget` rows), within the caller's tenant partition (the
   chunk row's own mandate and scope, no join).
   Each gets BM25 as if every word it matched occurred once: each group's best word's IDF,
   normalised by the chunk's length (`tsv_length`, on the narrow chunk row; migration 0015).
   No tsvector is read.
   When the query's words have more postings than the budget (large corpora), candidates are
   first the chunks holding two of its words (`word_pairs`): one GIN scan per pair
   intersects the two words' postings inside the index, so the many chunks holding one
   common word alone are never read, and each candidate's cheap score counts the query words
   of the pairs it matched (each at its commonest indexed word's IDF). lexical_leg.py fills up with
   single-word candidates when the pairs find fewer than the leg's limit.
2. The caller's visibility and filters (a join to `files` per row) for the best `checked` of
   them by that cheap score only: joining every candidate's file up front read all the tenant's
   files (11–20 ms of 64–94 at 1M chunks). When fewer than the leg's limit pass and some were
   never checked, the statement runs again checking them all.
3. Full BM25 (tf = positions, every group of the query) for the best `rescored` visible ones:
   a tsvector is read out of line and filtered for each (about 10 µs a chunk; the one-step
   ranking over 5,000 candidates cost 80 ms of CPU per query at 100k chunks).

A chunk the cheap score ranks below `rescored` would need repeats of its words, or common
words the plan left out, to reach the top; `bench/search_scale.py` prints how much of the full
BM25 top 10 the leg returns.

The steps are one statement of fixed text: the query's words, groups and IDFs come as arrays,
the caller's visibility as the workspace's own condition compiled to SQL. SQLAlchemy then
compiles nothing per query (building the equivalent Core statement cost ~4 ms of CPU per
search) and asyncpg reuses one prepared statement per connection and filter shape.
"""

from __future__ import annotations

from dataclasses import dataclass

from sqlalchemy import text
from sqlalchemy.ext.asyncio import AsyncSession

from agentur.context import RequestContext
from agentur.knowledge.lexical_plan import BM25_B, BM25_K1, LexicalLimits, LexicalPlan, idf
from agentur.knowledge.search_legs import SearchFilters

# {visible}: the caller's filter over `knowledge_chunks` and `files` (named binds).
# BM25 length normalisation: K1 · (1 − b + b · dl / average dl).
_SCAN = """
WITH scanned AS (
    SELECT c.id, c.tsv_length AS dl, s.lexeme, s.ga, s.gb
    FROM unnest(CAST(:scan AS text[]), CAST(:queries AS text[]), CAST(:ga AS int[]),
                CAST(:gb AS int[])) AS s(lexeme, query, ga, gb)
    CROSS JOIN LATERAL (
        SELECT knowledge_chunks.id, knowledge_chunks.tsv_length
        FROM knowledge_chunks
        WHERE knowledge_chunks.tsv @@ to_tsquery('simple', s.query)
          AND (knowledge_chunks.mandate_id = :mine OR knowledge_chunks.scope = 'global')
        OFFSET 0  -- keeps the subquery apart: one GIN scan per query, never a table scan
    ) AS c
    LIMIT :budget
),
k AS (
    SELECT CAST(:k1 AS float8) AS k1, CAST(:b AS float8) AS b, CAST(:average AS float8) AS average
),
words AS (
    SELECT * FROM unnest(CAST(:words AS text[]), CAST(:groups AS int[]), CAST(:idfs AS float8[]))
        AS w(lexeme, grp, idf)
),
"""
# Single words: each scanned row is one word of one group (ga = gb = -1).
_PER_WORD = """
per_group AS (
    SELECT m.id, w.grp, max(w.idf) AS idf, min(m.dl) AS dl
    FROM scanned AS m JOIN words AS w ON w.lexeme = m.lexeme AND w.grp < :chosen
    GROUP BY m.id, w.grp
),
"""
# Pairs: each scanned row holds two query words (ga, gb; numbered from 0 in :word_idfs).
_PER_PAIR = """
per_group AS (
    SELECT m.id, u.n AS grp, min(u.idf) AS idf, min(m.dl) AS dl
    FROM scanned AS m
    JOIN unnest(CAST(:word_idfs AS float8[])) WITH ORDINALITY AS u(idf, n)
        ON u.n - 1 IN (m.ga, m.gb)
    GROUP BY m.id, u.n
),
"""
_RESCORE = """
cheap AS (
    SELECT id, min(dl) AS dl,
        sum(idf) * (k1 + 1) / (1 + k1 * (1 - b + b * min(dl) / average)) AS score
    FROM per_group, k GROUP BY id, k1, b, average
    ORDER BY score DESC, id
    LIMIT :checked
),
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
SELECT id, score, false AS last FROM ranked
UNION ALL
SELECT NULL, count(*), true FROM cheap  -- last: how many candidates had their visibility checked
ORDER BY last, score DESC, id
"""
_BM25 = _SCAN + _PER_WORD + _RESCORE
_BM25_PAIRS = _SCAN + _PER_PAIR + _RESCORE


def _quoted(lexemes: object) -> str:
    """A tsquery matching any of `lexemes` (tsquery quoting)."""
    return " | ".join("'" + w.replace("'", "''") + "'" for w in lexemes)  # type: ignore[attr-defined]


@dataclass(frozen=True, slots=True)
class WordPairs:
    """Query words (each the union of its terms' indexed words, rarest word first) and the
    pairs of them whose co-occurrence finds candidates."""

    words: list[list[str]]
    pairs: list[tuple[int, int]]


def word_pairs(plan: LexicalPlan, word_of: dict[str, int]) -> WordPairs:
    """Each query word that has one of the chosen (rarest) groups, paired with every later
    query word. A word and its stem are one query word (`word_of`: term -> query word): they
    co-occur in every chunk that holds the word. Words sharing an indexed word (overlapping
    prefix expansions) are not paired."""
    units: dict[int, dict[str, None]] = {}
    chosen: set[int] = set()
    for n, group in enumerate(plan.groups):
        unit = word_of.get(group.term, -1 - n)
        units.setdefault(unit, {}).update(dict.fromkeys(group.lexemes))
        if n < plan.selected:
            chosen.add(unit)
    keys = list(units)
    words = [list(units[key]) for key in keys]
    pairs = [
        (a, b)
        for a in range(len(keys))
        if keys[a] in chosen
        for b in range(a + 1, len(keys))
        if not units[keys[a]].keys() & units[keys[b]].keys()
    ]
    return WordPairs(words, pairs)


async def rank_postgres(
    session: AsyncSession,
    plan: LexicalPlan,
    all_groups: bool,
    context: RequestContext,
    filters: SearchFilters,
    limit: int,
    limits: LexicalLimits,
    documents: int,
    length: int,
    pairs: WordPairs | None = None,
) -> list[int]:
    """`pairs`: candidates are the chunks holding both words of a pair (the GIN index
    intersects the two words' postings, so a chunk holding one word alone is never read);
    else every chunk matching a word of the chosen groups.

    Candidates come from the caller's tenant partition (its mandate and `global`, on the
    chunk's own row); the caller's visibility and filters are checked for the best
    `limits.checked` of them by the cheap score only. When fewer than `limit` pass and the
    cut left candidates unchecked, the statement runs again checking every candidate."""
    # Scoring uses every group (a common term still adds its share); candidates come from
    # the chosen groups only, rarest first: when the budget cuts, it cuts the commonest
    # words' rows. A word in two groups (a query word and its stem's expansion) is scanned once.
    chosen = len(plan.chosen(all_groups=all_groups))
    words = [
        (w, n, idf(df, max(documents, df)))
        for n, g in enumerate(plan.groups)
        for w, df in g.lexemes.items()
    ]
    if pairs:
        scan = ["" for _ in pairs.pairs]
        queries = [
            f"({_quoted(pairs.words[a])}) & ({_quoted(pairs.words[b])})" for a, b in pairs.pairs
        ]
        ga, gb = [a for a, _ in pairs.pairs], [b for _, b in pairs.pairs]
    else:
        scan = list(dict.fromkeys(w for g in plan.groups[:chosen] for w in g.lexemes))
        queries = [_quoted([w]) for w in scan]
        ga = gb = [-1] * len(scan)
    visible, params = filters.sql(context)
    params.update(
        scan=scan,
        queries=queries,
        ga=ga,
        gb=gb,
        words=[w[0] for w in words],
        groups=[w[1] for w in words],
        idfs=[w[2] for w in words],
        mine=context.mandate_id,
        budget=limits.budget,
        rescored=max(limits.rescored, limit),
        checked=max(limits.checked, limits.rescored, limit),
        limit=limit,
        k1=BM25_K1,
        b=BM25_B,
        average=max(length / documents, 1.0) if documents else 1.0,
    )
    if pairs:  # a query word scores its commonest indexed word's IDF
        by_lexeme = {w: i for w, _, i in words}
        params["word_idfs"] = [min(by_lexeme[w] for w in word) for word in pairs.words]
    else:
        params["chosen"] = chosen
    statement = (_BM25_PAIRS if pairs else _BM25).format(visible=visible)
    # term_stats.py turned parallel workers off for this transaction.
    rows = list(await session.execute(text(statement), params))
    found, checked = [int(row[0]) for row in rows[:-1]], int(rows[-1][1])
    if len(found) < limit and checked >= params["checked"] and checked < limits.budget:
        # The filters dropped too many of the best: check every candidate (the budget bounds them).
        params["checked"] = limits.budget
        rows = list(await session.execute(text(statement), params))
        found = [int(row[0]) for row in rows[:-1]]
    return found
