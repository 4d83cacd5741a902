"""The knowledge store's side of the agent's hooks (protocols in agentur/agent/hooks.py, met
structurally — this module never imports the agent): `KnowledgeRag` builds the context block before
a round, `KnowledgeRoundMemory` stores each round, `KnowledgeWorkflowMemory` keeps a completed
run's facts and entities for later runs of its workflow (the context's fourth layer)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from sqlalchemy import select

from agentur.context import RequestContext
from agentur.knowledge.extract_workflow_facts import extract_workflow_facts
from agentur.knowledge.run_records import RoundFacts, RunFacts
from agentur.knowledge.store import knowledge_store
from agentur.storage.models import File
from agentur.workspace.scopes import visible_files

if TYPE_CHECKING:
    from agentur.runtime_parts import RuntimeParts

MAX_FILE_REFS = 50


class KnowledgeRag:
    def __init__(self, runtime: RuntimeParts) -> None:
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
    def __init__(self, runtime: RuntimeParts) -> None:
        self.runtime = runtime

    async def save_round(self, record: RoundFacts, context: RequestContext) -> None:
        store = knowledge_store(self.runtime)
        async with self.runtime.database.transaction() as session:
            await store.rounds.save_round(session, record, context)


class KnowledgeWorkflowMemory:
    def __init__(self, runtime: RuntimeParts) -> None:
        self.runtime = runtime

    async def save_run(self, record: RunFacts, context: RequestContext) -> None:
        store = knowledge_store(self.runtime)
        settings = store.settings
        if settings.knowledge_memory_extraction == "off":
            return
        refs = list(record.file_refs)[:MAX_FILE_REFS]
        async with self.runtime.database.session() as session:
            # Only files the caller may still see are named (a file may be gone by now).
            rows = await session.execute(
                select(File.id, File.name).where(File.id.in_(refs), visible_files(context))
            )
            names = {file_id: name for file_id, name in rows}
        facts = await extract_workflow_facts(
            record,
            context,
            ai=self.runtime.ai,
            mode=settings.knowledge_memory_extraction,
            file_names=[(ref, names[ref]) for ref in refs if ref in names],
            limit=settings.knowledge_memory_facts_per_run,
            max_output_tokens=settings.knowledge_memory_extraction_max_output_tokens,
        )
        if not facts:
            return
        # The extraction call ran outside this transaction: no connection held while waiting.
        async with self.runtime.database.transaction() as session:
            # Most important last: layer 4 lists the most recently seen first.
            for fact in reversed(facts):
                await store.facts.remember(
                    session, context, record.workflow_id, fact.key, fact.value, kind=fact.kind
                )
            await store.facts.prune(
                session, context, record.workflow_id, settings.knowledge_memory_facts_per_workflow
            )


async def build_agent_context(
    runtime: RuntimeParts, prompt: str, context: RequestContext, *, workflow_id: str | None = None
) -> str:
    """The hook: the formatted RAG block ('' when there is nothing or no embedding)."""
    return await KnowledgeRag(runtime)(prompt, context, workflow_id=workflow_id)
