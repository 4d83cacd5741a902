"""The agent loop with the knowledge hooks: its round sees the RAG block, its round is stored."""

from __future__ import annotations

from sqlalchemy import select

from agentur.agent.config import AgentConfig
from agentur.agent.run_agent import run_agent
from agentur.agent.settings import AgentSettings
from agentur.ai.providers.scripted import ScriptedProvider, ScriptedTurn
from agentur.ai.service import AiService
from agentur.ai.settings import AiSettings
from agentur.knowledge.store import KnowledgeStore
from agentur.runtime import Runtime
from agentur.storage.models.knowledge import RoundMemory
from tests.knowledge.conftest import upload


async def test_agent_round_gets_rag_block_and_round_memory(
    runtime: Runtime, store: KnowledgeStore, tenants
) -> None:
    alice = await tenants.member()
    await upload(runtime, alice.context, "zoo.md", "# Zoo\n\nThe zebra enclosure opens at nine.")
    await store.worker.run_until_idle()
    provider = ScriptedProvider(
        [
            ScriptedTurn.call("search_knowledge", query="zebra enclosure"),
            ScriptedTurn(text="It opens at nine."),
        ]
    )
    runtime.ai = AiService([provider], settings=AiSettings())
    store.embedder.ai = runtime.ai
    deps = runtime.agent_dependencies(AgentSettings())
    result = await run_agent(
        "When does the zebra enclosure open?", AgentConfig(), alice.context, deps
    )
    assert result.status.value == "completed"
    chat = [r for r in provider.received if r.operation != "embedding"]
    context = chat[0].messages[-1].content  # the round's context, after the cacheable prefix
    assert "Knowledge context" in context and "zebra enclosure opens at nine" in context
    async with runtime.database.session() as session:
        rows = list((await session.execute(select(RoundMemory))).scalars())
    assert len(rows) == 1 and rows[0].workflow_id == result.workflow_id
    assert rows[0].tool_results[0]["tool_name"] == "search_knowledge"
    assert "zebra enclosure opens at nine" in rows[0].text and rows[0].embedding
