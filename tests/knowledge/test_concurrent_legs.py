"""With `knowledge_search_concurrent_legs` (off by default), hybrid search on PostgreSQL runs
its vector leg on a second pooled connection while the lexical leg runs, only while the pool
has an idle connection; the hits are those of the legs run one after the other. SQLite runs
them one after the other on one connection."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import AsyncExitStack, contextmanager
from typing import Any

from sqlalchemy import event, text

from agentur.knowledge.search import KnowledgeSearch, SearchResult
from agentur.knowledge.store import KnowledgeStore
from agentur.runtime import Runtime
from tests.conftest import Tenants
from tests.knowledge.conftest import knowledge_settings, upload


@contextmanager
def connections_by_leg(runtime: Runtime) -> Iterator[dict[str, set[int]]]:
    """The DBAPI connections each leg's ranking statement ran on."""
    seen: dict[str, set[int]] = {"vector": set(), "lexical": set()}

    def record(connection: Any, cursor: Any, statement: str, *args: Any) -> None:
        if "<=>" in statement or "knowledge_bits" in statement:
            seen["vector"].add(id(connection.connection.dbapi_connection))
        elif "scanned" in statement or "knowledge_chunks_fts MATCH" in statement:
            seen["lexical"].add(id(connection.connection.dbapi_connection))

    engine = runtime.database.engine.sync_engine
    event.listen(engine, "before_cursor_execute", record)
    try:
        yield seen
    finally:
        event.remove(engine, "before_cursor_execute", record)


async def _search(runtime: Runtime, search: KnowledgeSearch, context: Any) -> SearchResult:
    async with runtime.database.session() as session:
        return await search.search(session, "okapi weather report", context)


async def test_vector_leg_runs_on_its_own_connection_when_the_pool_has_one(
    runtime: Runtime, store: KnowledgeStore, tenants: Tenants
) -> None:
    alice = await tenants.member()
    for i in range(6):
        body = f"# Note {i}\n\nweather report {i}" + (" about the okapi" if i % 2 else "")
        await upload(runtime, alice.context, f"note-{i}.md", body)
    await store.worker.run_until_idle()
    postgres = not runtime.database.is_sqlite
    one_by_one = store.search  # the default
    concurrent = KnowledgeSearch(
        store.search.embedder, knowledge_settings(knowledge_search_concurrent_legs=True)
    )

    with connections_by_leg(runtime) as together:
        beside = await _search(runtime, concurrent, alice.context)
    with connections_by_leg(runtime) as sequential:
        after = await _search(runtime, one_by_one, alice.context)

    assert beside.legs == after.legs == ["vector", "lexical"]
    assert [h.chunk_id for h in beside.hits] == [h.chunk_id for h in after.hits]
    assert len(beside.hits) == 6 and beside.hits[0].legs == ["vector", "lexical"]
    assert sequential["vector"] == sequential["lexical"]  # one connection
    assert (together["vector"] != together["lexical"]) is postgres

    # Every pooled connection busy: the legs share the request's connection instead of
    # waiting for a second one (concurrent searches would otherwise wait for each other).
    async with AsyncExitStack() as held:
        pool_size = runtime.database.engine.sync_engine.pool.size()
        for _ in range(pool_size if postgres else 0):
            connection = await held.enter_async_context(runtime.database.engine.connect())
            await connection.execute(text("SELECT 1"))
        with connections_by_leg(runtime) as busy:
            crowded = await _search(runtime, concurrent, alice.context)
    assert [h.chunk_id for h in crowded.hits] == [h.chunk_id for h in after.hits]
    assert busy["vector"] == busy["lexical"] and len(busy["vector"]) == 1
