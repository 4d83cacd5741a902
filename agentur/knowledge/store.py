"""The knowledge store of one runtime: settings, embedder, indexer, search, reader, memory.

Built lazily once per runtime (`knowledge_store(runtime)`); everything else asks it.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from agentur.knowledge.context_builder import AgentContextBuilder
from agentur.knowledge.embedding import Embedder
from agentur.knowledge.indexer import FileIndexer
from agentur.knowledge.memory import RoundMemoryService, WorkflowMemoryService
from agentur.knowledge.search import KnowledgeSearch
from agentur.knowledge.section_reader import SectionReader
from agentur.knowledge.settings import KnowledgeSettings
from agentur.knowledge.worker import IndexWorker

if TYPE_CHECKING:
    from agentur.runtime_parts import RuntimeParts

ATTRIBUTE = "_knowledge_store"


class KnowledgeStore:
    def __init__(
        self,
        runtime: RuntimeParts,
        settings: KnowledgeSettings | None = None,
        **indexer_options: object,
    ) -> None:
        self.runtime = runtime
        self.settings = settings or runtime.all_settings.knowledge
        ai = getattr(runtime, "ai", None)
        self.embedder = Embedder(
            ai, self.settings.knowledge_embedding_model, self.settings.knowledge_embedding_batch
        )
        self.search = KnowledgeSearch(self.embedder, self.settings)
        self.indexer = FileIndexer(
            runtime.database,
            runtime.blobs,
            ai,
            self.embedder,
            self.settings,
            runtime.all_settings.ocr,
            **indexer_options,  # type: ignore[arg-type]
        )
        self.worker = IndexWorker(self.indexer, self.settings.knowledge_worker_poll_seconds)
        self.reader = SectionReader(self.settings.knowledge_section_cache_size)
        self.rounds = RoundMemoryService(self.embedder)
        self.facts = WorkflowMemoryService(self.embedder)
        self.context_builder = AgentContextBuilder(
            self.search, self.rounds, self.facts, self.settings.knowledge_context_budget_tokens
        )


def knowledge_store(runtime: RuntimeParts) -> KnowledgeStore:
    store = runtime.__dict__.get(ATTRIBUTE)
    if store is None:
        store = KnowledgeStore(runtime)
        runtime.__dict__[ATTRIBUTE] = store
    return store


def use_knowledge_store(runtime: RuntimeParts, store: KnowledgeStore) -> None:
    """Install a specially configured store (tests, CLI options)."""
    runtime.__dict__[ATTRIBUTE] = store
