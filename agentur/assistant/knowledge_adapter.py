"""Picks the `KnowledgeSearch` for an assistant: the knowledge store (agentur.knowledge: hybrid
search with citations, section windows) over the assistant's scope, falling back to the
lexical workspace search (ranked by the store's lexical engine) for files the store has not
indexed yet.

The assistant's scope is applied on top of tenant visibility: scopes and file ids go into the
store's filters, folders are resolved to their files, and a window is only read from a source
inside the scope — the model cannot widen any of it.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass
from typing import TYPE_CHECKING

from sqlalchemy.ext.asyncio import AsyncSession

from agentur.assistant.definition import KnowledgeScope
from agentur.assistant.knowledge_port import KnowledgeSearch, Passage, SourceWindow
from agentur.assistant.workspace_knowledge import WorkspaceKnowledge
from agentur.context import RequestContext
from agentur.errors import AgenturError, NotFoundError
from agentur.storage.models import File

if TYPE_CHECKING:
    from agentur.runtime import Runtime

logger = logging.getLogger(__name__)


@dataclass(eq=False)
class StoreKnowledge:
    session: AsyncSession
    runtime: Runtime
    context: RequestContext
    scope: KnowledgeScope
    fallback: WorkspaceKnowledge

    async def _file_ids(self) -> list[str] | None:
        if not (self.scope.folder_ids or self.scope.file_ids):
            return None
        rows = await self.session.execute(self.fallback.scoped_files().with_only_columns(File.id))
        return list(rows.scalars())

    async def search(self, query: str, limit: int) -> list[Passage]:
        from agentur.knowledge.search_legs import SearchFilters
        from agentur.knowledge.store import knowledge_store

        store = knowledge_store(self.runtime)
        filters = SearchFilters(scopes=list(self.scope.scopes), file_ids=await self._file_ids())
        try:
            result = await store.search.search(
                self.session,
                query,
                self.context,
                limit=min(limit, store.settings.knowledge_max_search_limit),
                filters=filters,
            )
            hits = result.hits
        except AgenturError as error:
            logger.info("knowledge store search failed, using the workspace search: %s", error)
            hits = []
        if not hits:
            return await self.fallback.search(query, limit)
        return [
            Passage(
                source_id=hit.file_id,
                text=hit.text,
                file_name=hit.file_name,
                heading_path=tuple(hit.heading_path),
                page=hit.page,
                offset=hit.start,
                length=hit.end - hit.start,
                score=round(hit.score, 6),
            )
            for hit in hits
        ]

    async def read_window(self, source_id: str, offset: int, limit: int) -> SourceWindow:
        from agentur.knowledge.store import knowledge_store

        if not await self.fallback.in_scope(source_id):
            raise NotFoundError(f"source {source_id} is not in this assistant's knowledge")
        try:
            window = await knowledge_store(self.runtime).reader.read_section(
                self.session, self.context, source_id, offset=offset, limit=limit
            )
        except AgenturError:
            return await self.fallback.read_window(source_id, offset, limit)
        return SourceWindow(
            source_id, window.file_name, window.content, window.offset, limit, window.total_length
        )


def knowledge_for(
    session: AsyncSession, runtime: Runtime, context: RequestContext, scope: KnowledgeScope
) -> KnowledgeSearch:
    from agentur.knowledge.rank_texts import rank_texts

    workspace = WorkspaceKnowledge(session, runtime.blobs, context, scope, rank_texts)
    return StoreKnowledge(session, runtime, context, scope, workspace)
