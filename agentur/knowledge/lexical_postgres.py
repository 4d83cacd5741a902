"""BM25 on PostgreSQL in two steps, so a query's cost does not grow with its matches' size.

1. Candidates from the GIN index, one scan per distinct word of the term groups the plan chose
   (rarest group first, at most `budget` rows), already filtered by the caller's visibility.
   Each gets BM25 as if every word it matched occurred once: each group's best word's IDF,
   normalised by the chunk's length (`tsv_length`, on the narrow chunk row; migration 0015).
   No tsvector is read.
   When the query's words have more postings than the budget (large corpora), candidates are
   first the chunks holding two of its words (`group_pairs`): one GIN scan per pair
   intersects the two words' postings inside the index, so the many chunks holding one
   common word alone are never read, and each candidate's cheap score counts the groups of
   the pairs it matched (each at its commonest word's IDF). lexical_leg.py fills up with
   single-word candidates when the pairs find fewer than the leg's limit.
2. Full BM25 (tf = positions, every group of the query) for the best `rescored` of them only:
   a tsvector is read out of line and filtered for each (about 10 µs a chunk; the one-step
   ranking over 5,000 candidates cost 80 ms of CPU per query at 100k chunks).

A chunk the cheap score ranks below `rescored` would need repeats of its words, or common
words the plan left out, to reach the top; `bench/search_scale.py` prints how much of the full
BM25 top 10 the leg returns.

Both steps are one statement of fixed text: the query's words, groups and IDFs come as arrays,
the caller's visibility as the workspace's own condition compiled to SQL. SQLAlchemy then
compiles nothing per query (building the equivalent Core statement cost ~4 ms of CPU per
search) and asyncpg reuses one prepared statement per connection and filter shape.
"""

from __future__ import annotations

from sqlalchemy import text
from sqlalchemy.ext.asyncio import AsyncSession

from agentur.context import RequestContext
from agentur.knowledge.lexical_plan import BM25_B, BM25_K1, LexicalPlan, idf
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
        FROM knowledge_chunks JOIN files ON files.id = knowledge_chunks.file_id
        WHERE knowledge_chunks.tsv @@ to_tsquery('simple', s.query)
          AND {visible}
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
# Pairs: each scanned row matched two groups (ga, gb), each scoring its commonest word's IDF.
_PER_PAIR = """
group_idf AS (
    SELECT grp, min(idf) AS idf FROM words GROUP BY grp
),
per_group AS (
    SELECT m.id, g.grp, min(g.idf) AS idf, min(m.dl) AS dl
    FROM scanned AS m JOIN group_idf AS g ON g.grp IN (m.ga, m.gb)
    GROUP BY m.id, g.grp
),
"""
_RESCORE = """
cheap AS (
    SELECT id, min(dl) AS dl FROM per_group, k GROUP BY id, k1, b, average
    ORDER BY sum(idf) * (k1 + 1) / (1 + k1 * (1 - b + b * min(dl) / average)) DESC, id
    LIMIT :rescored
),
best AS (
    SELECT cheap.id, cheap.dl,
        ts_filter(setweight(c.tsv, 'A', CAST(:words AS text[])), '{{a}}') AS tsv
    FROM cheap JOIN knowledge_chunks AS c ON c.id = cheap.id
),
per_term AS (
    SELECT best.id, w.grp,
        max(w.idf * f.tf * (k1 + 1) / (f.tf + k1 * (1 - b + b * best.dl / average))) AS score
    FROM best CROSS JOIN k
    CROSS JOIN LATERAL unnest(best.tsv) AS u(lexeme, positions, weights)
    CROSS JOIN LATERAL (SELECT coalesce(array_length(u.positions, 1), 1) AS tf) AS f
    JOIN words AS w ON w.lexeme = u.lexeme
    GROUP BY best.id, w.grp
)
SELECT id FROM per_term GROUP BY id ORDER BY sum(score) DESC, id LIMIT :limit
"""
_BM25 = _SCAN + _PER_WORD + _RESCORE
_BM25_PAIRS = _SCAN + _PER_PAIR + _RESCORE


def _quoted(lexemes: object) -> str:
    """A tsquery matching any of `lexemes` (tsquery quoting)."""
    return " | ".join("'" + w.replace("'", "''") + "'" for w in lexemes)  # type: ignore[attr-defined]


def group_pairs(plan: LexicalPlan, word_of: dict[str, int]) -> list[tuple[int, int]]:
    """Pairs of groups whose co-occurrence finds candidates, rarest first: each chosen group
    with every later group. Skipped: groups of one query word (`word_of`: term -> query word;
    a word and its stem co-occur in every chunk holding the word) and groups sharing an
    indexed word (a prefix expansion)."""
    groups = plan.groups
    found = []
    for a in range(plan.selected):
        for b in range(a + 1, len(groups)):
            same_word = word_of.get(groups[a].term, -1) == word_of.get(groups[b].term, -2)
            if not same_word and not groups[a].lexemes.keys() & groups[b].lexemes.keys():
                found.append((a, b))
    return found


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
    pairs: list[tuple[int, int]] | None = None,
) -> list[int]:
    """`pairs`: candidates are the chunks matching both groups of a pair (the GIN index
    intersects the two groups' postings, so a chunk matching one word alone is never read);
    else every chunk matching a word of the chosen groups."""
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
        scan = ["" for _ in pairs]
        queries = [
            f"({_quoted(plan.groups[a].lexemes)}) & ({_quoted(plan.groups[b].lexemes)})"
            for a, b in pairs
        ]
        ga, gb = [a for a, _ in pairs], [b for _, b in pairs]
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
        budget=budget,
        rescored=max(rescored, limit),
        limit=limit,
        k1=BM25_K1,
        b=BM25_B,
        average=max(length / documents, 1.0) if documents else 1.0,
    )
    if not pairs:
        params["chosen"] = chosen
    statement = (_BM25_PAIRS if pairs else _BM25).format(visible=visible)
    # term_stats.py turned parallel workers off for this transaction.
    rows = await session.execute(text(statement), params)
    return [int(chunk_id) for chunk_id in rows.scalars()]
