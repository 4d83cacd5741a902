"""The assistant answers from the knowledge store (hybrid search, extracted PDFs with pages)
through its adapter, inside the assistant's scope only."""

from __future__ import annotations

import httpx

from agentur.ai.model_spec import Capability, ModelSpec
from agentur.ai.providers.scripted import ScriptedProvider
from agentur.ai.service import AiService
from agentur.ai.settings import AiSettings
from agentur.knowledge.store import KnowledgeStore, use_knowledge_store
from agentur.runtime import Runtime
from agentur.workspace.scopes import Scope
from tests.assistant.definitions import shop_definition
from tests.conftest import Tenants
from tests.knowledge.conftest import knowledge_settings, upload
from tests.knowledge.sample_files import pdf_bytes

# Embeddings only: every chat call finds no model, so answers are extractive.
EMBEDDING_ONLY = ModelSpec(
    provider="scripted",
    name="scripted-embedding",
    capabilities=frozenset({Capability.embeddings}),
    input_price_usd_per_mtok=0.0,
    output_price_usd_per_mtok=0.0,
    embedding_dimensions=64,
)


async def test_extractive_answer_from_an_indexed_pdf(
    client: httpx.AsyncClient, tenants: Tenants, runtime: Runtime
) -> None:
    await runtime.ai.aclose()
    runtime.ai = AiService([ScriptedProvider(model_specs=[EMBEDDING_ONLY])], settings=AiSettings())
    store = KnowledgeStore(runtime, knowledge_settings())
    use_knowledge_store(runtime, store)
    admin = await tenants.member()
    report = await upload(runtime, admin.context, "report.pdf", pdf_bytes(), scope=Scope.mandate)
    private = await upload(runtime, admin.context, "private.md", "Alpine secrets stay personal.")
    for file in (report, private):
        await store.indexer.index_file(file.id)

    created = await client.post("/v1/assistants", json=shop_definition(), headers=admin.headers)
    assistant_id = created.json()["id"]
    cid = (
        await client.post(f"/v1/assistants/{assistant_id}/conversations", headers=admin.headers)
    ).json()["id"]
    answer = await client.post(
        f"/v1/assistants/{assistant_id}/conversations/{cid}/messages",
        json={"text": "How did revenue develop in the alpine region?"},
        headers=admin.headers,
    )
    body = answer.json()
    assert "search_knowledge:extractive" in body["decision_path"], body
    assert "Revenue grew strongly in the alpine region" in body["answer"]
    files = {source["file"] for source in body["sources"]}
    assert files == {"report.pdf"}  # the personal file is outside any assistant's reach
    assert body["sources"][0]["page"] == 1
