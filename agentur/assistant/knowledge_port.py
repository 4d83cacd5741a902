"""What the assistant needs from a knowledge store: search passages with citations, and read a
window of a source. Bound to one assistant's scope and tenant when built, so the model can
never widen either (scope and ownership stay outside the model's control)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Protocol


@dataclass(frozen=True, slots=True)
class Passage:
    source_id: str
    text: str
    file_name: str
    heading_path: tuple[str, ...] = ()
    page: int | None = None
    offset: int = 0
    length: int = 0
    score: float = 0.0

    def citation(self) -> dict[str, Any]:
        """A named source as the `sources` event carries it."""
        return {
            "kind": "document",
            "source_id": self.source_id,
            "file": self.file_name,
            "section": " > ".join(self.heading_path) or None,
            "page": self.page,
            "offset": self.offset,
            "length": self.length,
        }


@dataclass(frozen=True, slots=True)
class SourceWindow:
    source_id: str
    file_name: str
    content: str
    offset: int
    limit: int
    total_length: int


class KnowledgeSearch(Protocol):
    async def search(self, query: str, limit: int) -> list[Passage]: ...

    async def read_window(self, source_id: str, offset: int, limit: int) -> SourceWindow: ...


class TextRanker(Protocol):
    """Lexical relevance of each text to a query (0.0: unrelated), in input order: the knowledge
    store's engine (`agentur.knowledge.rank_texts`), so the assistant keeps no second one."""

    def __call__(self, query: str, texts: Sequence[str], language: str) -> list[float]: ...
