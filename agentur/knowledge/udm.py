"""The unified document model (UDM): one shape for every extracted format.

A document is its extracted text plus sections (heading paths) and blocks that point into that
text by character offsets, so any block, section or search hit can be read back exactly
(`text[start:end]`). Pages are 1-based and only set where the format has pages.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from enum import StrEnum
from typing import Any

BLOCK_SEPARATOR = "\n\n"


class ContentType(StrEnum):
    text = "text"
    table = "table"
    image = "image"
    code = "code"
    list = "list"


@dataclass(frozen=True, slots=True)
class Section:
    index: int
    title: str
    level: int  # 1 = top-level heading
    path: tuple[str, ...]  # titles from the top-level heading down to this one
    start: int  # offset of the heading text
    end: int  # offset where the next section of the same or a higher level starts
    page: int | None = None


@dataclass(frozen=True, slots=True)
class Block:
    index: int
    content_type: ContentType
    start: int
    end: int
    heading_path: tuple[str, ...]
    page: int | None = None
    section_index: int | None = None
    rows: tuple[tuple[str, ...], ...] | None = None  # tables: cell texts, header row first


@dataclass
class Document:
    text: str
    sections: list[Section] = field(default_factory=list)
    blocks: list[Block] = field(default_factory=list)
    page_count: int | None = None
    format: str = "text"

    def block_text(self, block: Block) -> str:
        return self.text[block.start : block.end]

    def structure(self) -> dict[str, Any]:
        """The JSON-able outline stored in the file's index (no block text)."""
        return {
            "format": self.format,
            "page_count": self.page_count,
            "length": len(self.text),
            "sections": [{**asdict(s), "path": list(s.path)} for s in self.sections],
            "blocks": [
                {
                    "index": b.index,
                    "content_type": b.content_type.value,
                    "start": b.start,
                    "end": b.end,
                    "heading_path": list(b.heading_path),
                    "page": b.page,
                    "section_index": b.section_index,
                    "rows": [list(r) for r in b.rows] if b.rows is not None else None,
                }
                for b in self.blocks
            ],
        }

    def summary(self) -> dict[str, Any]:
        """An object summary without a model: counts per content type, top headings."""
        counts: dict[str, int] = {}
        for block in self.blocks:
            counts[block.content_type.value] = counts.get(block.content_type.value, 0) + 1
        return {
            "characters": len(self.text),
            "pages": self.page_count,
            "sections": len(self.sections),
            "blocks": counts,
            "headings": [s.title for s in self.sections if s.level == 1][:20]
            or [s.title for s in self.sections][:20],
        }

    @classmethod
    def from_structure(cls, text: str, structure: dict[str, Any]) -> Document:
        sections = [
            Section(
                index=s["index"],
                title=s["title"],
                level=s["level"],
                path=tuple(s["path"]),
                start=s["start"],
                end=s["end"],
                page=s.get("page"),
            )
            for s in structure.get("sections", [])
        ]
        blocks = [
            Block(
                index=b["index"],
                content_type=ContentType(b["content_type"]),
                start=b["start"],
                end=b["end"],
                heading_path=tuple(b["heading_path"]),
                page=b.get("page"),
                section_index=b.get("section_index"),
                rows=tuple(tuple(r) for r in b["rows"]) if b.get("rows") is not None else None,
            )
            for b in structure.get("blocks", [])
        ]
        return cls(
            text=text,
            sections=sections,
            blocks=blocks,
            page_count=structure.get("page_count"),
            format=structure.get("format", "text"),
        )


def render_table(rows: list[list[str]]) -> str:
    """A table as text: one line per row, cells separated by ` | ` (kept whole by the chunker)."""
    return "\n".join(" | ".join(cell.replace("\n", " ").strip() for cell in row) for row in rows)
