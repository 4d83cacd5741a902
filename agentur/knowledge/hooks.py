"""The agent core's hooks (agentur/agent/hooks.py), implemented by the knowledge store:
`KnowledgeRag` builds the K4 block before a round, `KnowledgeRoundMemory` stores each round."""

from __future__ import annotations

from typing import TYPE_CHECKING

from agentur.agent.hooks import RoundRecord
from agentur.context import RequestContext
from agentur.knowledge.store import knowledge_store

if TYPE_CHECKING:
    from agentur.runtime import Runtime


class KnowledgeRag:
    def __init__(self, runtime: Runtime) -> None:
        self.runtime = runtime

    async def __call__(
        self, prompt: str, context: RequestContext, *, workflow_id: str | None
    ) -> str:
        store = knowledge_store(self.runtime)
        async with self.runtime.database.session() as session:
            return await store.context_builder.build(
                session, prompt, context, workflow_id=workflow_id
            )


class KnowledgeRoundMemory:
    def __init__(self, runtime: Runtime) -> None:
        self.runtime = runtime

    async def save_round(self, record: RoundRecord, context: RequestContext) -> None:
        store = knowledge_store(self.runtime)
        async with self.runtime.database.transaction() as session:
            await store.rounds.save_round(session, record, context)


async def build_agent_context(
    runtime: Runtime, prompt: str, context: RequestContext, *, workflow_id: str | None = None
) -> str:
    """K4's entry point: the formatted RAG block ('' when there is nothing or no embedding)."""
    return await KnowledgeRag(runtime)(prompt, context, workflow_id=workflow_id)


def knowledge_hooks(runtime: Runtime) -> dict[str, object]:
    """Keyword arguments for `AgentDependencies(..., **knowledge_hooks(runtime))`."""
    return {"rag": KnowledgeRag(runtime), "round_memory": KnowledgeRoundMemory(runtime)}
