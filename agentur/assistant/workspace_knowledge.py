"""A lexical `KnowledgeSearch` over the workspace text files in an assistant's knowledge scope.

This is the fallback for files the knowledge store has not indexed (yet): sections by Markdown
heading, paragraphs as passages, ranked by the store's own lexical engine (a `TextRanker`, see
`agentur.knowledge.rank_texts`) off the event loop. It sees only files visible to the
assistant's context (mandate and global scope, never personal files) and within the configured
folders/files/scopes.
"""

from __future__ import annotations

import asyncio
import re
from dataclasses import dataclass

from sqlalchemy import Select, select
from sqlalchemy.ext.asyncio import AsyncSession

from agentur.assistant.definition import KnowledgeScope
from agentur.assistant.knowledge_port import Passage, SourceWindow, TextRanker
from agentur.context import RequestContext
from agentur.errors import AgenturError, NotFoundError
from agentur.storage.blob_store import BlobStore
from agentur.storage.models import File
from agentur.workspace.scopes import visible_files
from agentur.workspace.text_window import decode_text

MAX_FILES = 200
MAX_FILE_BYTES = 2_000_000
PASSAGE_CHARS = 900
HEADING = re.compile(r"^(#{1,6})\s+(.+?)\s*$")


@dataclass
class _Section:
    file: File
    headings: tuple[str, ...]
    text: str
    offset: int


def split_sections(file: File, text: str) -> list[_Section]:
    """Paragraph passages with the Markdown heading path above them and their char offsets."""
    sections: list[_Section] = []
    path: list[tuple[int, str]] = []
    position = 0
    for block in re.split(r"(\n\s*\n)", text):
        start = position
        position += len(block)
        stripped = block.strip()
        if not stripped:
            continue
        lines = stripped.splitlines()
        heading = HEADING.match(lines[0])
        if heading:
            level = len(heading.group(1))
            path = [item for item in path if item[0] < level] + [(level, heading.group(2))]
            lines = lines[1:]
            if not lines:
                continue
        body = "\n".join(lines)
        offset = start + block.find(lines[0])
        for piece in range(0, len(body), PASSAGE_CHARS):
            chunk = body[piece : piece + PASSAGE_CHARS]
            sections.append(_Section(file, tuple(t for _, t in path), chunk, offset + piece))
    return sections


@dataclass(eq=False)
class WorkspaceKnowledge:
    session: AsyncSession
    blobs: BlobStore
    context: RequestContext
    scope: KnowledgeScope
    rank: TextRanker

    def scoped_files(self) -> Select[tuple[File]]:
        """Files visible to the assistant's context and inside its knowledge scope."""
        query = select(File).where(visible_files(self.context), File.scope.in_(self.scope.scopes))
        if self.scope.folder_ids or self.scope.file_ids:
            query = query.where(
                File.folder_id.in_(self.scope.folder_ids) | File.id.in_(self.scope.file_ids)
            )
        return query

    async def _text(self, file: File) -> str | None:
        if file.size > MAX_FILE_BYTES:
            return None
        try:
            return decode_text(self.blobs.read_bytes(file.sha256), file.mime_type)
        except AgenturError:
            return None  # binary documents need the knowledge store's extractors

    async def search(self, query: str, limit: int) -> list[Passage]:
        files = (
            await self.session.execute(self.scoped_files().order_by(File.name).limit(MAX_FILES))
        ).scalars()
        sections: list[_Section] = []
        for file in files:
            text = await self._text(file)
            if text:
                sections += split_sections(file, text)
        texts = [" ".join(section.headings) + "\n" + section.text for section in sections]
        # Up to MAX_FILES files of text: stemming and scoring stay off the event loop.
        scores = await asyncio.to_thread(self.rank, query, texts, self.context.language)
        scored = sorted(zip(scores, sections, strict=True), key=lambda p: -p[0])
        return [
            Passage(
                source_id=section.file.id,
                text=section.text,
                file_name=section.file.name,
                heading_path=section.headings,
                offset=section.offset,
                length=len(section.text),
                score=round(score, 4),
            )
            for score, section in scored[:limit]
            if score > 0
        ]

    async def in_scope(self, source_id: str) -> bool:
        found = await self.session.execute(self.scoped_files().where(File.id == source_id))
        return found.first() is not None

    async def read_window(self, source_id: str, offset: int, limit: int) -> SourceWindow:
        file = (
            await self.session.execute(self.scoped_files().where(File.id == source_id))
        ).scalar_one_or_none()
        text = await self._text(file) if file else None
        if file is None or text is None:
            raise NotFoundError(f"source {source_id} is not in this assistant's knowledge")
        offset = max(0, offset)
        return SourceWindow(
            source_id, file.name, text[offset : offset + limit], offset, limit, len(text)
        )
