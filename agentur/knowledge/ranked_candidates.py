"""A bounded candidate set, filtered and ranked in one statement, that also says whether the
set was cut: the SQLite legs take their candidates from an index (bit KNN, FTS5 rank) in a
materialized CTE, join the chunk and file rows for the caller's visibility, and order by
score; when the filter leaves too few hits, only a cut candidate set is worth widening."""

from __future__ import annotations

from sqlalchemy import CTE, Float, Integer, Subquery, func, literal, select
from sqlalchemy.ext.asyncio import AsyncSession


async def rank_visible(
    session: AsyncSession, ranked: Subquery, candidates: CTE, asked: int
) -> tuple[list[int], bool]:
    """`ranked`: (id, score) rows, lower score first; `candidates`: the CTE they come from,
    which was asked for `asked` rows. Returns the ids in score order and whether the CTE gave
    fewer rows than asked (its source has no more)."""
    # One trip: the ranked rows, plus one row (id NULL) with the number of candidates.
    counted = select(literal(None, Integer), func.count().cast(Float)).select_from(candidates)
    rows = (await session.execute(select(*ranked.c).union_all(counted))).all()
    found = sorted((row for row in rows if row[0] is not None), key=lambda row: (row[1], row[0]))
    given = next(int(row[1]) for row in rows if row[0] is None)
    return [int(row[0]) for row in found], given < asked
