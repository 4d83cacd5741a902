"""Windowed reading of indexed documents: a section by heading path or a character
range, returned as a window plus the total length, never silently truncated.

The parsed document is cached per (file, content, config); the visibility check is not cached:
every call asks the database whether the caller may see the file.
"""

from __future__ import annotations

from collections import OrderedDict
from dataclasses import dataclass

from sqlalchemy import select
from sqlalchemy.ext.asyncio import AsyncSession
from sqlalchemy.orm import defer

from agentur.context import RequestContext
from agentur.errors import InvalidInputError, NotFoundError
from agentur.knowledge.udm import Document, Section
from agentur.storage.models import File
from agentur.storage.models.knowledge import READABLE_STATUSES, FileContentIndex
from agentur.workspace.scopes import visible_files

DEFAULT_WINDOW = 4_000
MAX_WINDOW = 50_000


@dataclass(frozen=True, slots=True)
class SectionWindow:
    file_id: str
    file_name: str
    heading_path: list[str]
    content: str
    offset: int  # inside the section (or range)
    section_start: int  # where the section starts in the document text
    total_length: int  # of the section (or range)

    @property
    def next_offset(self) -> int | None:
        end = self.offset + len(self.content)
        return end if end < self.total_length else None


class SectionReader:
    def __init__(self, cache_size: int) -> None:
        self.cache_size = cache_size
        self._cache: OrderedDict[tuple[str, str, str], Document] = OrderedDict()

    async def document(
        self, session: AsyncSession, context: RequestContext, file_id: str
    ) -> tuple[File, FileContentIndex, Document]:
        row = (
            await session.execute(
                select(File, FileContentIndex)
                .join(FileContentIndex, FileContentIndex.file_id == File.id)
                .where(File.id == file_id, visible_files(context))
                # The text and structure are only needed on a cache miss: don't fetch them per call.
                .options(defer(FileContentIndex.extracted_text), defer(FileContentIndex.structure))
            )
        ).one_or_none()
        if row is None:
            raise NotFoundError(f"file {file_id} not found or not indexed")
        file, index = row
        not_indexed = NotFoundError(f"file {file_id} is not indexed (status {index.status})")
        if index.status not in READABLE_STATUSES:
            raise not_indexed
        key = (file.id, index.content_sha256 or "", index.config_key or "")
        document = self._cache.get(key)
        if document is None:
            await session.refresh(index, ["extracted_text", "structure"])
            if index.extracted_text is None:
                raise not_indexed
            document = Document.from_structure(index.extracted_text, index.structure or {})
            if self.cache_size:
                self._cache[key] = document
                while len(self._cache) > self.cache_size:
                    self._cache.popitem(last=False)
        else:
            self._cache.move_to_end(key)
        return file, index, document

    async def read_section(
        self,
        session: AsyncSession,
        context: RequestContext,
        file_id: str,
        *,
        heading_path: list[str] | None = None,
        start: int | None = None,
        end: int | None = None,
        offset: int = 0,
        limit: int = DEFAULT_WINDOW,
    ) -> SectionWindow:
        if offset < 0 or not 1 <= limit <= MAX_WINDOW:
            raise InvalidInputError(f"offset must be >= 0 and limit between 1 and {MAX_WINDOW}")
        file, _, document = await self.document(session, context, file_id)
        path: list[str] = []
        if heading_path:
            section = find_section(document, heading_path)
            if section is None:
                raise NotFoundError(f"no section {' > '.join(heading_path)!r} in {file.name!r}")
            range_start, range_end, path = section.start, section.end, list(section.path)
        else:
            range_start = max(0, start or 0)
            range_end = len(document.text) if end is None else min(end, len(document.text))
            if range_end < range_start:
                raise InvalidInputError("end must not be before start")
        body = document.text[range_start:range_end]
        return SectionWindow(
            file_id=file.id,
            file_name=file.name,
            heading_path=path,
            content=body[offset : offset + limit],
            offset=offset,
            section_start=range_start,
            total_length=len(body),
        )


def find_section(document: Document, heading_path: list[str]) -> Section | None:
    """The section whose path ends with `heading_path` (case-insensitive), shallowest first."""
    wanted = [part.strip().lower() for part in heading_path if part.strip()]
    for section in sorted(document.sections, key=lambda s: (s.level, s.index)):
        titles = [title.lower() for title in section.path]
        if titles[-len(wanted) :] == wanted:
            return section
    return None
