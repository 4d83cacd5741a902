"""The knowledge context of the fast path: a lexical search of what was just said, limited to
the scopes the session may use. Lexical only: it needs no embedding call, so it adds
milliseconds, not a model round trip, to every answer."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from agentur.context import RequestContext
from agentur.knowledge.search import LEXICAL
from agentur.knowledge.search_legs import SearchFilters
from agentur.knowledge.store import knowledge_store

if TYPE_CHECKING:
    from agentur.runtime_parts import RuntimeParts

HITS = 5


async def knowledge_context(
    runtime: RuntimeParts,
    query: str,
    scopes: Sequence[str],
    context: RequestContext,
    max_chars: int,
) -> str:
    if not scopes or max_chars <= 0 or not query.strip():
        return ""
    store = knowledge_store(runtime)
    async with runtime.database.session() as session:
        result = await store.search.search(
            session,
            query[:2_000],
            context,
            limit=HITS,
            filters=SearchFilters(scopes=list(scopes)),
            legs=(LEXICAL,),
        )
    lines: list[str] = []
    used = 0
    for hit in result.hits:
        line = f"- [{hit.file_name}] {' '.join(hit.text.split())}"
        if used + len(line) > max_chars:
            break
        lines.append(line)
        used += len(line) + 1
    return "\n".join(lines)
