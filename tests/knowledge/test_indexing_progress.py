"""Indexing beside the API: progress while a file embeds, searches answered while a large file
indexes, a file deleted mid-indexing, and the low-priority worker process."""

from __future__ import annotations

import asyncio
import logging
import os

import httpx
import pytest

from agentur.ai.providers import local_embedding
from agentur.ai.providers.local_embedding import LocalEmbeddingProvider
from agentur.ai.providers.scripted import ScriptedProvider
from agentur.ai.service import AiService
from agentur.ai.settings import AiSettings
from agentur.cpu_pool import background_work, in_background, offload, run_in_pool
from agentur.knowledge.settings import KnowledgeSettings
from agentur.knowledge.store import KnowledgeStore, use_knowledge_store
from agentur.runtime import Runtime
from agentur.workspace.files import FileService
from tests.knowledge.conftest import knowledge_settings, upload

BATCH = 4
NICE = KnowledgeSettings().knowledge_index_nice  # the default: the tests share one pool process


def _large_markdown(sections: int) -> str:
    parts = ["# Handbook"]
    for n in range(sections):
        parts.append(f"## Chapter {n}\n\n" + f"Chapter {n} explains crevasse rescue drills. " * 8)
    return "\n\n".join(parts)


@pytest.fixture
async def small_batches(runtime: Runtime) -> KnowledgeStore:
    await runtime.ai.aclose()
    runtime.ai = AiService([ScriptedProvider()], settings=AiSettings())
    store = KnowledgeStore(runtime, knowledge_settings(knowledge_embedding_batch=BATCH))
    use_knowledge_store(runtime, store)
    return store


async def test_progress_is_reported_and_monotonic(
    runtime: Runtime, small_batches: KnowledgeStore, client: httpx.AsyncClient, tenants
) -> None:
    alice = await tenants.member()
    file = await upload(runtime, alice.context, "handbook.md", _large_markdown(12))
    provider = small_batches.embedder.ai.providers["scripted"]  # type: ignore[union-attr]
    original = provider.embed
    seen: list[dict] = []

    async def observed(model, texts):  # noqa: ANN001, ANN202
        # Before each indexing batch: what a client polling the index endpoint sees.
        index = await client.get(f"/v1/files/{file.id}/index", headers=alice.headers)
        seen.append(index.json())
        return await original(model, texts)

    provider.embed = observed  # type: ignore[method-assign]
    reported: list[tuple[int, int]] = []

    async def on_progress(done: int, total: int) -> None:
        reported.append((done, total))

    outcome = await small_batches.indexer.index_file(file.id, on_progress=on_progress)
    assert outcome.status == "indexed" and outcome.chunks > 2 * BATCH

    total = outcome.chunks
    assert reported[0] == (0, total) and reported[-1] == (total, total)
    assert [done for done, _ in reported] == sorted(done for done, _ in reported)
    assert {t for _, t in reported} == {total}
    assert len(seen) == -(-total // BATCH)
    assert all(s["status"] == "indexing" and s["chunks_total"] == total for s in seen)
    done = [s["chunks_done"] for s in seen]
    assert done == sorted(done) and done[0] == 0 and done[-1] == total - (total - 1) % BATCH - 1
    assert seen[0]["eta_seconds"] is None  # no rate known before the first batch
    assert all(s["eta_seconds"] is not None and s["eta_seconds"] >= 0 for s in seen[1:])
    final = (await client.get(f"/v1/files/{file.id}/index", headers=alice.headers)).json()
    assert final["status"] == "indexed" and final["chunks_done"] == final["chunks_total"] == total
    assert final["chunk_count"] == total and final["eta_seconds"] is None


async def test_searches_are_answered_while_a_large_file_indexes(
    runtime: Runtime, small_batches: KnowledgeStore, client: httpx.AsyncClient, tenants
) -> None:
    alice = await tenants.member()
    guide = await upload(runtime, alice.context, "guide.md", "# Guide\n\nZermatt glacier tours.")
    assert (await small_batches.indexer.index_file(guide.id)).status == "indexed"
    large = await upload(runtime, alice.context, "handbook.md", _large_markdown(40))
    provider = small_batches.embedder.ai.providers["scripted"]  # type: ignore[union-attr]
    original = provider.embed
    gate = asyncio.Event()
    at_gate = asyncio.Event()

    async def gated(model, texts):  # noqa: ANN001, ANN202
        # Each indexing batch waits for one search to complete; query embeddings never wait.
        if in_background():
            at_gate.set()
            await gate.wait()
            gate.clear()
        return await original(model, texts)

    provider.embed = gated  # type: ignore[method-assign]
    indexing = asyncio.create_task(small_batches.indexer.index_file(large.id))

    async def status() -> str:
        return (await client.get(f"/v1/files/{large.id}/index", headers=alice.headers)).json()[
            "status"
        ]

    # Searches start once the first batch waits at the gate, so the file is `indexing`: before,
    # the first search could see `pending` and the count below fall one short under load.
    await asyncio.wait_for(at_gate.wait(), timeout=30)
    answered_while_indexing = 0
    while not indexing.done():
        found = await client.post(
            "/v1/knowledge/search", json={"query": "Zermatt glacier"}, headers=alice.headers
        )
        assert found.status_code == 200
        assert found.json()["hits"][0]["file_id"] == guide.id
        answered_while_indexing += await status() == "indexing"
        gate.set()
        await asyncio.wait({indexing}, timeout=0.05)
    outcome = indexing.result()
    assert outcome.status == "indexed" and outcome.chunks >= 40
    assert answered_while_indexing >= outcome.chunks // BATCH


async def test_a_file_deleted_mid_indexing_is_gone_quietly(
    runtime: Runtime,
    small_batches: KnowledgeStore,
    tenants,
    caplog: pytest.LogCaptureFixture,
) -> None:
    alice = await tenants.member()
    file = await upload(runtime, alice.context, "handbook.md", _large_markdown(6))
    provider = small_batches.embedder.ai.providers["scripted"]  # type: ignore[union-attr]
    original = provider.embed

    async def deleting(model, texts):  # noqa: ANN001, ANN202
        async with runtime.database.session() as session:
            files = FileService(session, runtime.blobs, alice.context, runtime.workspace_limits)
            if await session.get(type(file), file.id) is not None:
                await files.delete(file.id)
                await files.commit()
        return await original(model, texts)

    provider.embed = deleting  # type: ignore[method-assign]
    with caplog.at_level(logging.WARNING):
        outcome = await small_batches.indexer.index_file(file.id)
    assert outcome.status == "gone"
    assert not [r for r in caplog.records if r.levelno >= logging.ERROR]
    assert await small_batches.indexer.stale_file_ids(10) == []


async def test_background_work_runs_in_a_lower_priority_process() -> None:
    here = os.getpid()
    assert await offload(os.getpid) == here  # outside background work: a thread of ours
    with background_work(NICE):
        assert await offload(os.getpid) != here
    with background_work(None):  # the `thread` executor setting: still background work
        assert in_background() and await offload(os.getpid) == here
    assert not in_background()
    assert await run_in_pool(NICE, os.nice, 0) == min(19, os.nice(0) + NICE)


async def test_local_passage_embeddings_run_in_the_worker_process() -> None:
    provider = LocalEmbeddingProvider()
    spec = provider.models()[0]
    texts = ["Gletschertouren starten in Zermatt.", "query: Wo starten Gletschertouren?"]
    in_process, _ = await provider.embed(spec, texts)
    with background_work(NICE):
        in_worker, _ = await provider.embed(spec, texts)
    assert len(in_worker) == 2 and len(in_worker[0]) == spec.embedding_dimensions
    for a, b in zip(in_process, in_worker, strict=True):
        assert sum(x * y for x, y in zip(a, b, strict=True)) > 0.999
    assert sum(x * y for x, y in zip(in_worker[0], in_worker[1], strict=True)) < 0.999

    # In process too (the `thread` executor), indexing has its own model instance: a query is
    # embedded while an indexing batch holds that instance.
    with background_work(None):
        await provider.embed(spec, texts[:1])
    indexing_lock, _ = local_embedding._engine(provider.model_name, True)
    with indexing_lock:
        query, _ = await asyncio.wait_for(provider.embed(spec, texts[1:]), timeout=120)
    assert sum(x * y for x, y in zip(query[0], in_process[1], strict=True)) > 0.999


async def test_small_files_share_embedding_batches(
    runtime: Runtime, small_batches: KnowledgeStore, tenants
) -> None:
    alice = await tenants.member()
    bob = await tenants.member()
    topics = ["glacier", "harbour", "vineyard", "observatory", "monastery", "lighthouse"]
    files = [await upload(runtime, alice.context, f"{t}.txt", f"The {t} tour.") for t in topics]
    other = await upload(runtime, bob.context, "bob.txt", "The orchard tour.")
    provider = small_batches.embedder.ai.providers["scripted"]  # type: ignore[union-attr]
    original = provider.embed
    calls: list[int] = []

    async def counted(model, texts):  # noqa: ANN001, ANN202
        calls.append(len(texts))
        return await original(model, texts)

    provider.embed = counted  # type: ignore[method-assign]
    outcomes = await small_batches.worker.run_once()
    assert {o.status for o in outcomes} == {"indexed"} and len(outcomes) == len(topics) + 1
    # Alice's six one-chunk files fill batches of four; Bob's file (another owner) goes alone.
    assert sorted(calls) == sorted([BATCH, len(topics) - BATCH, 1])

    provider.embed = original  # type: ignore[method-assign]
    async with runtime.database.session() as session:
        for topic, file in zip(topics, files, strict=True):
            found = await small_batches.search.search(
                session, f"The {topic} tour.", alice.context, legs=("vector",)
            )
            assert found.hits[0].file_id == file.id  # each file got its own vectors back
        found = await small_batches.search.search(
            session, "The orchard tour.", bob.context, legs=("vector",)
        )
        assert [h.file_id for h in found.hits] == [other.id]


@pytest.mark.parametrize("executor", ["process", "thread"])
async def test_the_executor_setting_chooses_where_indexing_runs(
    runtime: Runtime, tenants, executor: str
) -> None:
    await runtime.ai.aclose()
    runtime.ai = AiService([ScriptedProvider()], settings=AiSettings())
    store = KnowledgeStore(runtime, knowledge_settings(knowledge_index_executor=executor))
    alice = await tenants.member()
    file = await upload(runtime, alice.context, "guide.md", "# Guide\n\nZermatt glacier tours.")
    provider = store.embedder.ai.providers["scripted"]  # type: ignore[union-attr]
    original = provider.embed
    pids: list[int] = []

    async def where(model, texts):  # noqa: ANN001, ANN202
        pids.append(await offload(os.getpid))  # what the indexer's offloaded steps would use
        return await original(model, texts)

    provider.embed = where  # type: ignore[method-assign]
    assert (await store.indexer.index_file(file.id)).status == "indexed"
    assert len(pids) == 1 and (pids[0] == os.getpid()) is (executor == "thread")
