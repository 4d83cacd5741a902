"""The vector leg at a few hundred chunks, both backends: its top 10 are (almost) the exact top
10; on SQLite the one-bit index keeps its centre and bits right as vectors come and go."""

from __future__ import annotations

import numpy as np
from sqlalchemy import text

from agentur.knowledge.chunk_store import ChunkRow, delete_file_chunks, insert_chunks
from agentur.knowledge.embedding import Embedder
from agentur.knowledge.search import KnowledgeSearch
from agentur.knowledge.settings import KnowledgeSettings
from agentur.runtime import Runtime
from tests.conftest import Member, Tenants
from tests.knowledge.conftest import upload

MODEL = "test:vectors"
DIMS = 64
FILES, PER_FILE = 8, 40


def _unit(matrix: np.ndarray) -> np.ndarray:
    return matrix / np.linalg.norm(matrix, axis=-1, keepdims=True)


def _file_vectors(rng: np.random.Generator, shift: float) -> np.ndarray:
    """Chunks around a file centre, all sharing one direction (as embedding models do)."""
    common = np.zeros(DIMS)
    common[0] = 2.0 + shift
    centre = _unit(rng.standard_normal(DIMS))
    return _unit(common + _unit(centre + 0.8 * _unit(rng.standard_normal((PER_FILE, DIMS)))))


async def _write(runtime: Runtime, member: Member, number: int, vectors: np.ndarray) -> str:
    file = await upload(runtime, member.context, f"f{number}.txt", f"file {number}")
    rows = [
        ChunkRow(i, f"chunk {i}", [], "text", None, 0, 7, "en", f"chunk {i}", list(v))
        for i, v in enumerate(vectors.tolist())
    ]
    async with runtime.database.transaction() as session:
        await insert_chunks(
            session,
            file_id=file.id,
            mandate_id=member.mandate_id,
            scope="personal",
            rows=rows,
            embedding_model=MODEL,
        )
    return file.id


async def _ids_by_row(runtime: Runtime, file_ids: list[str]) -> list[int]:
    async with runtime.database.session() as session:
        rows = await session.execute(text("SELECT id, file_id, ordinal FROM knowledge_chunks"))
        found = {(file_id, ordinal): chunk_id for chunk_id, file_id, ordinal in rows}
    return [found[(f, i)] for f in file_ids for i in range(PER_FILE)]


async def test_vector_leg_finds_the_exact_nearest(runtime: Runtime, tenants: Tenants) -> None:
    alice = await tenants.member()
    rng = np.random.default_rng(11)
    file_ids, blocks = [], []
    for number in range(FILES):
        # Later files drift along the shared direction: the SQLite centre must follow.
        blocks.append(_file_vectors(rng, shift=number / 4))
        file_ids.append(await _write(runtime, alice, number, blocks[-1]))
    vectors = np.vstack(blocks)
    ids = np.array(await _ids_by_row(runtime, file_ids))
    search = KnowledgeSearch(Embedder(None, MODEL), KnowledgeSettings())
    recalls = []
    for target in rng.choice(len(vectors), 30, replace=False):
        query = _unit(vectors[target] + 0.05 * _unit(rng.standard_normal(DIMS)))
        exact = ids[np.argsort(-(vectors @ query))[:10]]
        async with runtime.database.session() as session:
            result = await search.search(
                session,
                "chunk",
                alice.context,
                limit=10,
                query_vector=query.tolist(),
                legs=("vector",),
            )
        found = [hit.chunk_id for hit in result.hits]
        assert found[0] == ids[target]  # the chunk the query was made from comes first
        recalls.append(len(set(found) & set(exact.tolist())) / 10)
    assert np.mean(recalls) >= 0.9, recalls

    if runtime.database.is_sqlite:
        async with runtime.database.session() as session:
            basis, written = (
                await session.execute(
                    text("SELECT basis, written FROM knowledge_vector_centres WHERE dims = :d"),
                    {"d": DIMS},
                )
            ).one()
            assert written == FILES * PER_FILE and basis >= written // 2  # recentred as it grew
            # Deleting a file removes its floats and bits with it.
            await delete_file_chunks(session, file_ids[0])
            await session.commit()
            counts = [
                await session.scalar(text(f"SELECT count(*) FROM {table}"))
                for table in ("knowledge_vectors", f"knowledge_bits_{DIMS}")
            ]
        assert counts == [(FILES - 1) * PER_FILE] * 2


async def test_vector_leg_passes_over_what_the_caller_may_not_see(
    runtime: Runtime, tenants: Tenants
) -> None:
    """A colleague's personal file holds the 240 chunks nearest to the query, more than the
    first round's candidates: the visibility filter runs with the ranking, the candidate set
    widens, and the caller gets their own chunks, nearest first."""
    alice = await tenants.member("acme")
    colleague = await tenants.member("acme")
    rng = np.random.default_rng(5)
    target = _unit(rng.standard_normal(DIMS))
    hidden = _unit(target + 0.2 * _unit(rng.standard_normal((6 * PER_FILE, DIMS))))
    mine = _unit(target + 0.9 * _unit(rng.standard_normal((PER_FILE, DIMS))))
    for number in range(6):
        await _write(
            runtime, colleague, number, hidden[number * PER_FILE : (number + 1) * PER_FILE]
        )
    own = await _write(runtime, alice, 9, mine)
    ids = np.array(await _ids_by_row(runtime, [own]))
    search = KnowledgeSearch(Embedder(None, MODEL), KnowledgeSettings())
    async with runtime.database.session() as session:
        result = await search.search(
            session,
            "chunk",
            alice.context,
            limit=10,
            query_vector=target.tolist(),
            legs=("vector",),
        )
    assert {hit.file_id for hit in result.hits} == {own}
    exact = ids[np.argsort(-(mine @ target))[:10]]
    assert [hit.chunk_id for hit in result.hits][:3] == exact[:3].tolist()
    assert len(set(hit.chunk_id for hit in result.hits) & set(exact.tolist())) >= 9


async def test_postgres_candidate_list_grows_with_the_table(
    runtime: Runtime, tenants: Tenants
) -> None:
    """`hnsw.ef_search` follows the table's size (the planner's estimate after ANALYZE): the
    short list below `knowledge_vector_large_table` chunks, the long one from it on; the search
    still finds the nearest chunk either way."""
    if runtime.database.is_sqlite:
        return  # SQLite's bit index has no candidate list
    alice = await tenants.member()
    rng = np.random.default_rng(3)
    vectors = _file_vectors(rng, shift=0.0)
    ids = np.array(await _ids_by_row(runtime, [await _write(runtime, alice, 0, vectors)]))
    async with runtime.database.engine.connect() as connection:
        await connection.execution_options(isolation_level="AUTOCOMMIT")
        await connection.execute(text("ANALYZE knowledge_chunks"))
    chosen = {}
    for large_table in (PER_FILE + 1, PER_FILE):
        settings = KnowledgeSettings(
            knowledge_vector_ef_search=60,
            knowledge_vector_ef_search_large=90,
            knowledge_vector_large_table=large_table,
        )
        search = KnowledgeSearch(Embedder(None, MODEL), settings)
        async with runtime.database.session() as session:
            result = await search.search(
                session,
                "chunk",
                alice.context,
                limit=10,
                query_vector=vectors[7].tolist(),
                legs=("vector",),
            )
            assert result.hits[0].chunk_id == ids[7]
            # Set for the search's transaction, which is still open.
            chosen[large_table] = await session.scalar(text("SHOW hnsw.ef_search"))
    assert chosen == {PER_FILE + 1: "60", PER_FILE: "90"}
