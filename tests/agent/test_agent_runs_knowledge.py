"""POST /v1/agent/runs is wired to the knowledge store: the route builds its dependencies with
`runtime.agent_dependencies`, so the model sees the RAG block, each round is remembered and the
completed run leaves facts in its workflow's memory."""

from __future__ import annotations

import httpx
from sqlalchemy import select

from agentur.ai.providers.scripted import ScriptedProvider, ScriptedTurn
from agentur.ai.service import AiService
from agentur.ai.settings import AiSettings
from agentur.knowledge.store import KnowledgeStore, use_knowledge_store
from agentur.runtime import Runtime
from agentur.storage.models.knowledge import RoundMemory, WorkflowMemory
from tests.conftest import Tenants
from tests.knowledge.conftest import knowledge_settings, upload

PASSAGE = "The quokka feeding takes place at half past three."


async def test_api_run_gets_the_rag_block_and_stores_round_memory(
    client: httpx.AsyncClient, runtime: Runtime, tenants: Tenants
) -> None:
    alice = await tenants.member()
    provider = ScriptedProvider(
        [ScriptedTurn.call("list_files"), ScriptedTurn(text="At half past three.")]
    )
    await runtime.ai.aclose()
    runtime.ai = AiService(
        [provider], settings=AiSettings()
    )  # chat and (trigram) embeddings from one provider
    store = KnowledgeStore(runtime, knowledge_settings())
    use_knowledge_store(runtime, store)
    file = await upload(runtime, alice.context, "feeding.txt", f"Feeding times\n\n{PASSAGE}\n")
    assert (await store.indexer.index_file(file.id)).status == "indexed"

    response = await client.post(
        "/v1/agent/runs",
        headers=alice.headers,
        json={"prompt": "When is the quokka feeding?", "config": {"max_rounds": 5}},
    )

    assert response.status_code == 200, response.text
    body = response.json()
    assert body["status"] == "completed" and body["final_text"] == "At half past three."
    chat = [r for r in provider.received if r.operation == "agent"]
    assert len(chat) == 2
    context = chat[0].messages[-1]  # the round's context, after the cacheable prefix
    assert context.role == "user" and context.volatile
    assert "## Context from the knowledge store" in context.content
    assert PASSAGE in context.content
    async with runtime.database.session() as session:
        rows = list(
            (
                await session.execute(
                    select(RoundMemory).where(RoundMemory.workflow_id == body["workflow_id"])
                )
            ).scalars()
        )
    assert len(rows) == 1  # one tool round; the answering round has nothing to remember
    assert rows[0].mandate_id == alice.mandate_id
    assert rows[0].tool_results[0]["tool_name"] == "list_files"
    # The scripted reply to the extraction call is no JSON, so the rules wrote the memory.
    assert [r.operation for r in provider.received if r.operation == "data_extract"] == [
        "data_extract"
    ]
    async with runtime.database.session() as session:
        facts = {
            row.key: row.value
            for row in (
                await session.execute(
                    select(WorkflowMemory).where(
                        WorkflowMemory.workflow_id == body["workflow_id"],
                        WorkflowMemory.mandate_id == alice.mandate_id,
                    )
                )
            ).scalars()
        }
    # What happened (the successful list_files call), never the model's answer.
    assert set(facts) == {"list_files"} and "feeding.txt" in facts["list_files"]
    assert "half past three" not in str(facts)
