"""Document frequencies of a lexical query's terms, in one round trip per search: the df of
each term, for prefix terms the most frequent indexed words they start and the summed df of all
of them, and (PostgreSQL) the partition's document count and total length for BM25.

- SQLite: `knowledge_chunks_vocab` (fts5vocab over the FTS5 index); the statement is built per
  query shape (SQLite prepares it in microseconds).
- PostgreSQL: `knowledge_term_stats`, summed over the caller's mandate and `global`. One
  statement whatever the query (the terms come as arrays), so SQLAlchemy compiles it once and
  asyncpg prepares it once per connection; a statement per query shape missed both caches.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from sqlalchemy import text
from sqlalchemy.ext.asyncio import AsyncSession

from agentur.context import RequestContext
from agentur.knowledge.chunk_store import GLOBAL_PARTITION
from agentur.knowledge.lexical_plan import MAX_EXPANSIONS

PREFIX_END = "\U0010ffff"  # sorts after every character: [p, p + END) is "starts with p"


@dataclass(slots=True)
class TermStats:
    exact: dict[str, int] = field(default_factory=dict)  # query term -> df
    expansions: dict[str, list[tuple[str, int]]] = field(default_factory=dict)  # by df
    prefix_postings: dict[str, int] = field(default_factory=dict)  # summed df per prefix
    documents: int = 0  # PostgreSQL: chunks in the caller's partitions
    length: int = 0  # PostgreSQL: their summed BM25 lengths


# (q, x, term, doc) rows: x 0 = a term's df, 1 = an expansion, 2 = a prefix's summed df;
# q -1 / -2 = documents / total length. Row -3 turns parallel workers off for the rest of the
# transaction, i.e. for the BM25 statement that follows (lexical_postgres.py): they cost more
# to start than it takes (its budget bounds its work), and setting it here saves a round trip.
_POSTGRES = text(
    """
WITH t AS (
    SELECT (t.q - 1)::int AS q, t.term, t.high
    FROM unnest(CAST(:terms AS text[]), CAST(:highs AS text[])) WITH ORDINALITY AS t(term, high, q)
),
s AS NOT MATERIALIZED (
    SELECT term, df, total FROM knowledge_term_stats WHERE part IN (:mine, :everyone)
)
SELECT t.q, 0 AS x, t.term, e.doc
FROM t CROSS JOIN LATERAL (
    SELECT sum(s.df) AS doc FROM s WHERE s.term = t.term HAVING count(*) > 0
) AS e
UNION ALL
SELECT t.q, 2, '', a.doc
FROM t CROSS JOIN LATERAL (
    SELECT coalesce(sum(s.df), 0) AS doc FROM s
    WHERE s.term > t.term AND s.term < t.high COLLATE "C"
) AS a
WHERE t.high IS NOT NULL
UNION ALL
SELECT t.q, 1, p.term, p.doc
FROM t CROSS JOIN LATERAL (
    SELECT s.term, sum(s.df) AS doc FROM s
    WHERE s.term > t.term AND s.term < t.high COLLATE "C"
    GROUP BY s.term ORDER BY doc DESC, s.term LIMIT :expansions
) AS p
WHERE t.high IS NOT NULL
UNION ALL
SELECT -1, 0, '', coalesce(sum(df), 0) FROM s WHERE term = ''
UNION ALL
SELECT -2, 0, '', coalesce(sum(total), 0) FROM s WHERE term = ''
UNION ALL
SELECT -3, 0, set_config('max_parallel_workers_per_gather', '0', true), 0
"""
)


async def term_stats(
    session: AsyncSession, terms: list[tuple[str, bool]], context: RequestContext, sqlite: bool
) -> TermStats:
    if sqlite:
        rows = await _sqlite_rows(session, terms)
    else:
        params = {
            "terms": [term for term, _ in terms],
            "highs": [term + PREFIX_END if is_prefix else None for term, is_prefix in terms],
            "mine": context.mandate_id,
            "everyone": GLOBAL_PARTITION,
            "expansions": MAX_EXPANSIONS,
        }
        rows = list((await session.execute(_POSTGRES, params)).all())
    stats = TermStats()
    for q, x, term, doc in rows:
        if q == -1:
            stats.documents = int(doc)
        elif q == -2:
            stats.length = int(doc)
        elif q == -3:
            continue
        elif x == 0:
            stats.exact[terms[q][0]] = int(doc)
        elif x == 2:
            stats.prefix_postings[terms[q][0]] = int(doc)
        else:
            stats.expansions.setdefault(terms[q][0], []).append((term, int(doc)))
    for found in stats.expansions.values():
        found.sort(key=lambda pair: (-pair[1], pair[0]))
    return stats


async def _sqlite_rows(
    session: AsyncSession, terms: list[tuple[str, bool]]
) -> list[tuple[int, int, str, int]]:
    source = "(SELECT term, doc FROM knowledge_chunks_vocab WHERE {cond})"
    parts: list[str] = []
    params: dict[str, object] = {}
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
    rows = await session.execute(text(" UNION ALL ".join(parts)), params)
    return [(int(q), int(x), str(term), int(doc)) for q, x, term, doc in rows]
