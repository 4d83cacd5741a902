"""Small files index in batches (claimed together, chunked in one thread call, written in one
transaction), and each file still gets its own status: one bad file never fails the batch."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

from sqlalchemy import event, select

from agentur.ai.providers.scripted import ScriptedProvider
from agentur.ai.service import AiService
from agentur.ai.settings import AiSettings
from agentur.knowledge.store import KnowledgeStore, use_knowledge_store
from agentur.runtime import Runtime
from agentur.storage.models.knowledge import FileContentIndex
from tests.knowledge.conftest import knowledge_settings, upload

TOPICS = ["glacier", "harbour", "vineyard", "observatory", "monastery", "lighthouse"]


async def _store(runtime: Runtime, **indexer_options: object) -> KnowledgeStore:
    await runtime.ai.aclose()
    runtime.ai = AiService([ScriptedProvider()], settings=AiSettings())
    store = KnowledgeStore(
        runtime, knowledge_settings(knowledge_embedding_batch=4), **indexer_options
    )
    use_knowledge_store(runtime, store)
    return store


@contextmanager
def counted_commits(runtime: Runtime) -> Iterator[list[int]]:
    commits: list[int] = []

    def committed(connection: object) -> None:
        commits.append(1)

    engine = runtime.database.engine.sync_engine
    event.listen(engine, "commit", committed)
    try:
        yield commits
    finally:
        event.remove(engine, "commit", committed)


async def _statuses(runtime: Runtime) -> dict[str, tuple[str, str | None]]:
    async with runtime.database.session() as session:
        rows = await session.execute(select(FileContentIndex))
        return {i.file_id: (i.status, i.error) for i in rows.scalars()}


async def _vector_hit(store: KnowledgeStore, runtime: Runtime, query: str, context) -> str:  # noqa: ANN001
    async with runtime.database.session() as session:
        found = await store.search.search(session, query, context, legs=("vector",))
    return found.hits[0].file_id


async def test_small_files_are_claimed_and_written_in_few_transactions(
    runtime: Runtime, tenants
) -> None:
    store = await _store(runtime)
    alice = await tenants.member()
    files = [await upload(runtime, alice.context, f"{t}.txt", f"The {t} tour.") for t in TOPICS]
    with counted_commits(runtime) as commits:
        outcomes = await store.worker.run_once()
    assert [o.status for o in outcomes] == ["indexed"] * len(TOPICS)
    # One file at a time took a claim and a write transaction each (12 commits, plus billing
    # and the orphan sweep); in batches: one claim and a write per embedding batch of four.
    assert len(commits) < len(TOPICS)
    for topic, file in zip(TOPICS, files, strict=True):
        assert await _vector_hit(store, runtime, f"The {topic} tour.", alice.context) == file.id
    assert await store.indexer.stale_file_ids(10) == []


async def test_a_file_failing_its_write_fails_alone(runtime: Runtime, tenants) -> None:
    bad: list[str] = []

    async def refuse(file_id: str) -> None:
        if file_id in bad:
            raise RuntimeError("disk says no")

    store = await _store(runtime, after_chunks_written=refuse)
    alice = await tenants.member()
    files = [await upload(runtime, alice.context, f"{t}.txt", f"The {t} tour.") for t in TOPICS]
    bad.append(files[1].id)  # inside the first batch of four
    outcomes = {o.file_id: o for o in await store.worker.run_once()}
    assert outcomes[files[1].id].status == "failed"
    assert "disk says no" in (outcomes[files[1].id].error or "")
    good = [f for f in files if f.id not in bad]
    assert {outcomes[f.id].status for f in good} == {"indexed"}
    statuses = await _statuses(runtime)
    assert statuses[files[1].id][0] == "failed" and "disk says no" in statuses[files[1].id][1]
    for file in good:
        assert statuses[file.id] == ("indexed", None)
        topic = file.name.removesuffix(".txt")
        assert await _vector_hit(store, runtime, f"The {topic} tour.", alice.context) == file.id


async def test_an_unreadable_small_file_fails_alone(runtime: Runtime, tenants) -> None:
    store = await _store(runtime)
    alice = await tenants.member()
    files = [await upload(runtime, alice.context, f"{t}.txt", f"The {t} tour.") for t in TOPICS]
    broken = await upload(runtime, alice.context, "broken.pdf", b"%PDF-1.4 not really a pdf")
    outcomes = {o.file_id: o for o in await store.worker.run_once()}
    assert outcomes[broken.id].status == "failed" and outcomes[broken.id].error
    assert {outcomes[f.id].status for f in files} == {"indexed"}
    statuses = await _statuses(runtime)
    assert statuses[broken.id][0] == "failed"
    assert {statuses[f.id] for f in files} == {("indexed", None)}
    # Failed files count as done: nothing is picked up again until the file changes.
    assert await store.indexer.stale_file_ids(10) == []
