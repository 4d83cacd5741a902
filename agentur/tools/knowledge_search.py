"""`search_knowledge` (for the agent): hybrid search over the files the caller may see."""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, Field

from agentur.knowledge.search_legs import SearchFilters
from agentur.knowledge.store import knowledge_store
from agentur.tools.tool import Tool, ToolContext
from agentur.workspace.scopes import Scope


class SearchKnowledgeArguments(BaseModel):
    query: str = Field(min_length=1, max_length=2_000)
    limit: int = Field(default=8, ge=1, le=30)
    scopes: list[Scope] | None = None
    file_ids: list[str] | None = None
    content_types: list[str] | None = None


async def search_knowledge(args: SearchKnowledgeArguments, context: ToolContext) -> dict[str, Any]:
    store = knowledge_store(context.runtime)
    async with context.runtime.database.session() as session:
        result = await store.search.search(
            session,
            args.query,
            context.request,
            limit=args.limit,
            filters=SearchFilters(
                scopes=[s.value for s in args.scopes] if args.scopes is not None else None,
                file_ids=args.file_ids,
                content_types=args.content_types,
            ),
            workflow_id=context.workflow_id,
        )
    return {
        "legs": result.legs,
        "vector_error": result.vector_error,
        "hits": [
            {
                "file_id": h.file_id,
                "file_name": h.file_name,
                "heading_path": h.heading_path,
                "page": h.page,
                "start": h.start,
                "end": h.end,
                "content_type": h.content_type,
                "score": round(h.score, 5),
                "legs": h.legs,
                "text": h.text,
            }
            for h in result.hits
        ],
    }


TOOLS: list[Tool[Any]] = [
    Tool(
        "search_knowledge",
        "Search indexed documents (semantic + keyword): passages with file, heading path, "
        "page and offsets; read on with read_file (or the documents toolbox).",
        SearchKnowledgeArguments,
        search_knowledge,
        read_only=True,
    )
]
