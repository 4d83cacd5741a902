"""Builds a `Document` block by block, keeping offsets, heading paths and sections consistent.

Every extractor only says what it sees ("heading level 2 on page 3", "a table with these rows");
the builder owns the text buffer, so offsets are right by construction.
"""

from __future__ import annotations

from agentur.knowledge.udm import (
    BLOCK_SEPARATOR,
    Block,
    ContentType,
    Document,
    Section,
    render_table,
)


class DocumentBuilder:
    def __init__(self, format: str) -> None:
        self.format = format
        self._parts: list[str] = []
        self._length = 0
        self._sections: list[Section] = []
        self._open: list[Section] = []  # the current heading stack
        self._blocks: list[Block] = []
        self.page_count: int | None = None

    def _append(self, text: str) -> tuple[int, int]:
        if self._parts:
            self._parts.append(BLOCK_SEPARATOR)
            self._length += len(BLOCK_SEPARATOR)
        start = self._length
        self._parts.append(text)
        self._length += len(text)
        return start, self._length

    def _close_sections(self, level: int, at: int) -> None:
        while self._open and self._open[-1].level >= level:
            closed = self._open.pop()
            self._sections[closed.index] = _with_end(closed, at)

    @property
    def heading_path(self) -> tuple[str, ...]:
        return self._open[-1].path if self._open else ()

    def heading(self, title: str, level: int, page: int | None = None) -> None:
        title = " ".join(title.split())
        if not title:
            return
        level = max(1, level)
        start = self._length + (len(BLOCK_SEPARATOR) if self._parts else 0)
        self._close_sections(level, start)
        path = (*self.heading_path, title)
        self._append(title)
        section = Section(len(self._sections), title, level, path, start, start, page)
        self._sections.append(section)
        self._open.append(section)

    def block(
        self,
        content_type: ContentType,
        text: str,
        page: int | None = None,
        rows: list[list[str]] | None = None,
    ) -> None:
        text = text.strip("\n")
        if not text.strip():
            return
        start, end = self._append(text)
        self._blocks.append(
            Block(
                index=len(self._blocks),
                content_type=content_type,
                start=start,
                end=end,
                heading_path=self.heading_path,
                page=page,
                section_index=self._open[-1].index if self._open else None,
                rows=tuple(tuple(r) for r in rows) if rows is not None else None,
            )
        )

    def table(self, rows: list[list[str]], page: int | None = None) -> None:
        clean = [[(cell or "").strip() for cell in row] for row in rows if any(c for c in row)]
        if clean:
            self.block(ContentType.table, render_table(clean), page, clean)

    def build(self) -> Document:
        self._close_sections(0, self._length)
        return Document(
            text="".join(self._parts),
            sections=self._sections,
            blocks=self._blocks,
            page_count=self.page_count,
            format=self.format,
        )


def _with_end(section: Section, end: int) -> Section:
    return Section(
        section.index, section.title, section.level, section.path, section.start, end, section.page
    )
