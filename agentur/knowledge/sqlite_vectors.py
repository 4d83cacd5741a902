"""Vectors on SQLite: a one-bit-per-dimension index finds candidates, exact cosine ranks them.

sqlite-vec scans every vector of a partition; the wheel we get computes float distances without
SIMD (100k × 384 floats: ~35 ms CPU per query). One bit per dimension, the sign of the vector
minus a centre, scans in a few ms; the candidates (`oversample` × k of them) are then ranked by
exact cosine distance over the float vectors in `knowledge_vectors` (float32 BLOB by chunk
id; a table apart so the chunk rows the lexical leg reads stay small). bench/search_scale.py
prints the recall against exact search beside the latency.

The centre matters: embedding models put all texts in a narrow cone (cosine 0.7–0.9 between
unrelated texts), so raw signs would be nearly equal for everything. The centre is the mean of
the vectors written so far, recomputed (and every bit rewritten) each time their number
doubles until CENTRE_SETTLES, after which the mean barely moves; it is stored per dimension in
`knowledge_vector_centres`.
"""

from __future__ import annotations

from collections.abc import Sequence
from weakref import WeakKeyDictionary

import numpy as np
from sqlalchemy import (
    ColumnElement,
    Engine,
    Integer,
    LargeBinary,
    bindparam,
    column,
    func,
    select,
    table,
    text,
)
from sqlalchemy.ext.asyncio import AsyncSession

from agentur.knowledge.ranked_candidates import rank_visible
from agentur.storage.models import File
from agentur.storage.models.knowledge import ContentChunk

CENTRE_SETTLES = 4_096  # vectors after which the centre is no longer recomputed
MAX_KNN = 4_096  # sqlite-vec's largest k

VECTORS = table("knowledge_vectors", column("id", Integer), column("embedding", LargeBinary))
# A settled centre never changes again (see write_vectors): searches keep it per database and
# dimension instead of reading it on every query.
_SETTLED: WeakKeyDictionary[Engine, dict[int, np.ndarray]] = WeakKeyDictionary()


def bits_table(dims: int) -> str:
    return f"knowledge_bits_{int(dims)}"


def _bits(vectors: np.ndarray, centre: np.ndarray) -> list[bytes]:
    return [row.tobytes() for row in np.packbits(vectors - centre > 0, axis=1)]


async def ensure_bits_table(session: AsyncSession, dims: int) -> None:
    await session.execute(
        text(
            f"CREATE VIRTUAL TABLE IF NOT EXISTS {bits_table(dims)} USING vec0("
            f"part text partition key, embedding bit[{int(dims)}])"
        )
    )


async def _stored_centre(session: AsyncSession, dims: int) -> tuple[np.ndarray, int, int] | None:
    row = (
        await session.execute(
            text("SELECT centre, basis, written FROM knowledge_vector_centres WHERE dims = :dims"),
            {"dims": dims},
        )
    ).first()
    if row is None:
        return None
    return np.frombuffer(row[0], dtype=np.float32), int(row[1]), int(row[2])


async def _centre(session: AsyncSession, dims: int) -> np.ndarray | None:
    engine = session.bind.sync_engine
    settled = _SETTLED.setdefault(engine, {})
    if dims in settled:
        return settled[dims]
    stored = await _stored_centre(session, dims)
    if stored is None:
        return None
    if stored[1] >= CENTRE_SETTLES:
        settled[dims] = stored[0]
    return stored[0]


async def write_vectors(
    session: AsyncSession, dims: int, rows: Sequence[tuple[int, str, Sequence[float]]]
) -> None:
    """Stores (chunk id, partition, vector) rows: the floats on the chunk, the bits in the
    index. The chunks must exist already (same transaction)."""
    if not rows:
        return
    await ensure_bits_table(session, dims)
    vectors = np.asarray([vector for _, _, vector in rows], dtype=np.float32)
    await session.execute(
        text("INSERT INTO knowledge_vectors (id, embedding) VALUES (:id, :v)"),
        [
            {"id": chunk_id, "v": vector.tobytes()}
            for (chunk_id, _, _), vector in zip(rows, vectors, strict=True)
        ],
    )
    stored = await _stored_centre(session, dims)
    written = len(rows) + (stored[2] if stored else 0)
    if stored is None or (stored[1] < CENTRE_SETTLES and written >= 2 * stored[1]):
        await _recentre(session, dims, written)
        return  # every vector (the new ones included) got its bits from the new centre
    await session.execute(
        text("UPDATE knowledge_vector_centres SET written = :written WHERE dims = :dims"),
        {"written": written, "dims": dims},
    )
    await _insert_bits(session, dims, [(i, p) for i, p, _ in rows], vectors, stored[0])


async def _insert_bits(
    session: AsyncSession,
    dims: int,
    keys: Sequence[tuple[int, str]],
    vectors: np.ndarray,
    centre: np.ndarray,
) -> None:
    await session.execute(
        text(
            f"INSERT INTO {bits_table(dims)}(rowid, part, embedding) "
            "VALUES (:id, :part, vec_bit(:bits))"
        ),
        [
            {"id": chunk_id, "part": part, "bits": bits}
            for (chunk_id, part), bits in zip(keys, _bits(vectors, centre), strict=True)
        ],
    )


async def _recentre(session: AsyncSession, dims: int, written: int) -> None:
    """Centre = mean of every stored vector of this dimension; all bits rewritten with it
    (sqlite-vec cannot UPDATE a bit vector, so they are deleted and inserted)."""
    rows = (
        await session.execute(
            text(
                "SELECT c.id, CASE WHEN c.scope = 'global' THEN 'global' ELSE c.mandate_id END, "
                "v.embedding FROM knowledge_vectors v JOIN knowledge_chunks c ON c.id = v.id "
                "WHERE c.embedding_dims = :dims"
            ),
            {"dims": dims},
        )
    ).all()
    if not rows:
        return
    vectors = np.frombuffer(b"".join(row[2] for row in rows), dtype=np.float32)
    vectors = vectors.reshape(len(rows), dims)
    centre = vectors.mean(axis=0).astype(np.float32)
    await session.execute(
        text(
            "INSERT INTO knowledge_vector_centres (dims, centre, basis, written) "
            "VALUES (:dims, :centre, :basis, :written) ON CONFLICT (dims) DO UPDATE SET "
            "centre = excluded.centre, basis = excluded.basis, written = excluded.written"
        ),
        {"dims": dims, "centre": centre.tobytes(), "basis": len(rows), "written": written},
    )
    await session.execute(text(f"DELETE FROM {bits_table(dims)}"))
    await _insert_bits(session, dims, [(row[0], row[1]) for row in rows], vectors, centre)


async def nearest(
    session: AsyncSession,
    vector: Sequence[float],
    model: str,
    partitions: Sequence[str],
    conditions: Sequence[ColumnElement[bool]],
    k: int,
    oversample: int,
) -> tuple[list[int], bool]:
    """Chunk ids of `model` in `partitions` that meet `conditions` (the caller's visibility),
    nearest first, and whether the bit index had no more candidates to give. `oversample` × k
    candidates come by bits (per partition: sqlite-vec takes k from each); the visible ones
    are ranked by exact cosine distance in the same statement, so files the caller may not see
    neither cost a second round trip nor push visible chunks out of the k. Measured at 100k
    chunks, a quarter of them invisible to the searcher (bench/search_scale.py): oversample
    2 / 3 → recall@10 vs exact 0.984 / 0.993 at 14 / 18 ms CPU per vector search (sqlite-vec's
    top-k upkeep grows with k)."""
    dims = len(vector)
    centre = await _centre(session, dims)
    if centre is None:  # no vector of this dimension was ever written
        return [], True
    query = np.asarray(vector, dtype=np.float32)
    coarse = min(max(k * oversample, k), MAX_KNN)
    # The KNN stays alone in its materialized CTE (sqlite-vec plans `k = ?` there).
    near = (
        text(
            f"SELECT rowid AS id FROM {bits_table(dims)} "
            "WHERE embedding MATCH vec_bit(:bits) AND k = :coarse AND part IN :parts"
        )
        .bindparams(
            bindparam("parts", list(partitions), expanding=True),
            bits=_bits(query[None, :], centre)[0],
            coarse=coarse,
        )
        .columns(column("id", Integer))
        .cte("near")
        .prefix_with("MATERIALIZED")
    )
    distance = func.vec_distance_cosine(VECTORS.c.embedding, query.tobytes())
    ranked = (
        select(ContentChunk.id, distance.label("distance"))
        .select_from(near)
        .join(VECTORS, VECTORS.c.id == near.c.id)
        .join(ContentChunk, ContentChunk.id == near.c.id)
        .join(File, File.id == ContentChunk.file_id)
        .where(ContentChunk.embedding_model == model, *conditions)
        .order_by(distance, ContentChunk.id)
        .limit(k)
        .subquery("ranked")
    )
    return await rank_visible(session, ranked, near, coarse)
