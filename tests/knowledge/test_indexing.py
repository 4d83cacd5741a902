"""Indexing on both backends: incremental re-index, deletes, model change, lexical fallback and
re-embedding after an outage, neutralization at rest."""

from __future__ import annotations

from dataclasses import replace
from datetime import timedelta

from sqlalchemy import func, select, text, update

from agentur.ai.providers.base import ProviderError
from agentur.ai.providers.scripted import ScriptedProvider
from agentur.ai.service import AiService
from agentur.ai.settings import AiSettings
from agentur.context import utc_now
from agentur.knowledge.store import KnowledgeStore
from agentur.runtime import Runtime
from agentur.storage.models.knowledge import ContentChunk, FileContentIndex
from agentur.workspace.files import FileService
from tests.knowledge.conftest import SCRIPTED_EMBEDDING, knowledge_settings, upload

DOC = "# Alpine guide\n\nGlacier tours start in Zermatt every morning.\n\n## Safety\n\nRopes."


async def _chunks(runtime: Runtime, file_id: str) -> list[ContentChunk]:
    async with runtime.database.session() as session:
        rows = await session.execute(
            select(ContentChunk).where(ContentChunk.file_id == file_id).order_by(ContentChunk.id)
        )
        return list(rows.scalars())


async def _lexical_rows(runtime: Runtime) -> int:
    async with runtime.database.session() as session:
        if runtime.database.is_sqlite:
            return int(await session.scalar(text("SELECT count(*) FROM knowledge_chunks_fts")))
        return int(
            await session.scalar(
                text("SELECT count(*) FROM knowledge_chunks WHERE tsv IS NOT NULL")
            )
        )


async def test_incremental_reindex_touches_only_changed_files(
    runtime: Runtime, store: KnowledgeStore, tenants
) -> None:
    alice = await tenants.member()
    first = await upload(runtime, alice.context, "a.md", DOC)
    second = await upload(runtime, alice.context, "b.md", "# Other\n\nLake Geneva boats.")
    assert {o.file_id for o in await store.worker.run_until_idle()} == {first.id, second.id}
    before = [c.id for c in await _chunks(runtime, second.id)]

    async with runtime.database.session() as session:
        files = FileService(session, runtime.blobs, alice.context, runtime.workspace_limits)
        await files.replace_content(first.id, (DOC + "\n\nNew: Matterhorn views.").encode())
        await files.commit()
    assert await store.indexer.stale_file_ids(10) == [first.id]
    outcomes = await store.worker.run_until_idle()
    assert [(o.file_id, o.status) for o in outcomes] == [(first.id, "indexed")]
    assert [c.id for c in await _chunks(runtime, second.id)] == before  # untouched
    assert any("Matterhorn" in c.text for c in await _chunks(runtime, first.id))
    assert (await store.indexer.index_file(second.id)).status == "unchanged"

    # A deleted file takes its chunks, terms and vectors with it.
    async with runtime.database.session() as session:
        files = FileService(session, runtime.blobs, alice.context, runtime.workspace_limits)
        await files.delete(first.id)
        await files.commit()
    store.worker._last_sweep = 0.0
    await store.worker.run_once()
    assert await _chunks(runtime, first.id) == []
    assert await _lexical_rows(runtime) == len(before)

    # A different embedding model re-embeds everything, recording the model per chunk.
    provider = ScriptedProvider()
    embedding_spec = next(s for s in provider.models() if s.name == "scripted-embedding")
    provider.model_specs = [
        *provider.models(),
        replace(embedding_spec, name="scripted-embedding-v2"),
    ]
    await runtime.ai.aclose()
    runtime.ai = AiService([provider], settings=AiSettings())
    changed = KnowledgeStore(
        runtime,
        knowledge_settings(knowledge_embedding_model="scripted:scripted-embedding-v2"),
    )
    assert await changed.indexer.stale_file_ids(10) == [second.id]
    assert [o.file_id for o in await changed.worker.run_until_idle()] == [second.id]
    rechunked = await _chunks(runtime, second.id)
    assert {c.embedding_model for c in rechunked} == {"scripted:scripted-embedding-v2"}


async def test_lexical_fallback_when_the_embedder_raises(
    runtime: Runtime, store: KnowledgeStore, tenants
) -> None:
    alice = await tenants.member()
    failing = store.embedder.ai.providers["scripted"]  # type: ignore[union-attr]

    async def broken(model, texts):  # noqa: ANN001, ANN202
        raise ProviderError("embedding service down", provider="scripted")

    failing.embed = broken  # type: ignore[method-assign]
    file = await upload(runtime, alice.context, "a.md", DOC)
    (outcome,) = await store.worker.run_until_idle()
    assert outcome.status == "lexical_only" and not outcome.embedded
    async with runtime.database.session() as session:
        index = await session.scalar(
            select(FileContentIndex).where(FileContentIndex.file_id == file.id)
        )
        assert index.status == "lexical_only" and "failed" in (index.embedding_error or "")
        result = await store.search.search(session, "glacier tours Zermatt", alice.context)
    assert result.legs == ["lexical"] and result.vector_error
    assert result.hits and result.hits[0].legs == ["lexical"]
    assert "Zermatt" in result.hits[0].text

    # The embedder is back: the file is re-embedded once its retry time has come, not before.
    del failing.embed  # the provider's own method again
    assert await store.indexer.stale_file_ids(10) == []
    retry = timedelta(seconds=store.settings.knowledge_embedding_retry_seconds + 1)
    async with runtime.database.transaction() as session:
        await session.execute(
            update(FileContentIndex)
            .where(FileContentIndex.file_id == file.id)
            .values(indexed_at=utc_now() - retry)
        )
    (again,) = await store.worker.run_until_idle()
    assert again.status == "indexed" and again.embedded
    assert {c.embedding_model for c in await _chunks(runtime, file.id)} == {SCRIPTED_EMBEDDING}
    async with runtime.database.session() as session:
        index = await session.scalar(
            select(FileContentIndex).where(FileContentIndex.file_id == file.id)
        )
        assert index.status == "indexed" and index.embedding_error is None
        result = await store.search.search(session, "glacier tours Zermatt", alice.context)
    assert set(result.legs) == {"lexical", "vector"} and "vector" in result.hits[0].legs

    # No providers at all: still lexical search, and the RAG block is empty, not an error.
    store.embedder.ai = AiService([], settings=AiSettings())
    async with runtime.database.session() as session:
        result = await store.search.search(session, "Zermatt", alice.context)
        assert result.legs == ["lexical"] and result.hits
        block = await store.context_builder.build(session, "Zermatt", alice.context)
    assert block == ""


PII = "Write to hans.muster@example.com or call +41 79 123 45 67; IBAN CH93 0076 2011 6238 5295 7."


async def test_neutralize_at_rest_stores_no_pii(
    runtime: Runtime, store: KnowledgeStore, tenants
) -> None:
    alice = await tenants.member()
    file = await upload(
        runtime, alice.context, "contact.md", f"# Contact\n\n{PII}", neutralize=True
    )
    (outcome,) = await store.worker.run_until_idle()
    assert outcome.status == "indexed"
    async with runtime.database.session() as session:
        index = await session.scalar(
            select(FileContentIndex).where(FileContentIndex.file_id == file.id)
        )
        assert index.is_neutralized and index.neutralization_status == "neutralized"
        dump = repr(
            (index.extracted_text, index.structure, index.summary, await _chunks(runtime, file.id))
        )
        dump += repr([c.text for c in await _chunks(runtime, file.id)])
        if runtime.database.is_sqlite:
            dump += repr((await session.execute(text("SELECT * FROM knowledge_chunks_fts"))).all())
        else:
            dump += repr(
                (await session.execute(text("SELECT tsv::text FROM knowledge_chunks"))).all()
            )
    for secret in ("hans.muster", "example.com", "79 123", "6238", "muster"):
        assert secret not in dump.lower()
    assert "[EMAIL_1]" in dump
    count = await _lexical_rows(runtime)
    assert count == 1


async def test_neutralization_failure_stores_nothing(
    runtime: Runtime, store: KnowledgeStore, tenants
) -> None:
    alice = await tenants.member()

    async def refuse(text, context, *, workflow_id=None):  # noqa: ANN001, ANN202
        raise RuntimeError("neutralizer unavailable")

    store.indexer.ai.neutralize_text = refuse  # type: ignore[attr-defined]
    file = await upload(runtime, alice.context, "c.md", f"# C\n\n{PII}", neutralize=True)
    (outcome,) = await store.worker.run_until_idle()
    assert outcome.status == "failed"
    assert await _chunks(runtime, file.id) == []
    async with runtime.database.session() as session:
        index = await session.scalar(
            select(FileContentIndex).where(FileContentIndex.file_id == file.id)
        )
        assert index.neutralization_status == "failed" and index.extracted_text is None
        assert await session.scalar(select(func.count()).select_from(ContentChunk)) == 0
