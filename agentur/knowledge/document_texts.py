"""The tools' `DocumentTexts` port (agentur/workspace/document_text.py, met structurally — this
module never imports the tools) over the knowledge store: the text of any workspace file.

A text file (plain, Markdown, CSV, JSON) is read as its own text, so windows and headings are
the file's. A document (PDF, DOCX, XLSX, HTML, a scan) is read as the stored extraction when its
index is current; otherwise — not indexed yet, or changed since — it is extracted now, off the
event loop (the indexing worker process for larger files, as indexing does), within
`AGENTUR_KNOWLEDGE_MAX_EXTRACT_BYTES`, and kept for the next tool reading the same bytes
(`AGENTUR_KNOWLEDGE_SECTION_CACHE_SIZE` documents). A file with no text (a recording, an
archive, an unknown binary) raises `NotTextError` and is never decoded into text.

Neutralization follows the index: a file marked `neutralize` is only ever handed out neutralized.
Its stored extraction already is (it is used only when it was neutralized); its own text or a
fresh extraction is neutralized here with the workflow's placeholders, as `read_file` shows it.
"""

from __future__ import annotations

import asyncio
from collections import OrderedDict
from dataclasses import dataclass
from typing import TYPE_CHECKING, Literal

from sqlalchemy import select
from sqlalchemy.ext.asyncio import AsyncSession
from sqlalchemy.orm import defer

from agentur.context import RequestContext
from agentur.cpu_pool import run_in_pool
from agentur.errors import InvalidInputError, NotFoundError
from agentur.knowledge.extract import TEXT_FORMATS, detect_format, extract, no_text_reason
from agentur.storage.models import File
from agentur.storage.models.knowledge import NO_TEXT, READABLE_STATUSES, FileContentIndex
from agentur.workspace.scopes import visible_files
from agentur.workspace.text_window import NotTextError, decode_text

if TYPE_CHECKING:
    from agentur.knowledge.settings import KnowledgeSettings
    from agentur.runtime_parts import RuntimeParts


# The file's own text, the stored extraction of its index, or an extraction made for this call.
TextOrigin = Literal["file", "index", "extracted"]


@dataclass(frozen=True, slots=True)
class DocumentText:
    file: File
    text: str  # neutralized when the file is marked `neutralize`
    origin: TextOrigin


class KnowledgeDocumentTexts:
    def __init__(self, runtime: RuntimeParts) -> None:
        self.runtime = runtime
        # Extractions made on demand, by (content, format): equal bytes extract equally, and
        # whoever asks has passed the visibility check for a file holding them.
        self._extracted: OrderedDict[tuple[str, str], str] = OrderedDict()

    async def read(
        self, request: RequestContext, file_id: str, *, workflow_id: str | None
    ) -> DocumentText:
        async with self.runtime.database.session() as session:
            file, index = await _file_and_index(session, request, file_id)
            if reason := no_text_reason(file.name, file.mime_type):
                raise NotTextError(f"{file.name!r}: {reason}")
            if index and index.status == NO_TEXT and index.content_sha256 == file.sha256:
                raise NotTextError(f"{file.name!r}: {index.error}")
            is_text = detect_format(file.name, file.mime_type) in TEXT_FORMATS
            stored = None if is_text else await _stored_extraction(session, file, index)
        if stored is not None:
            return DocumentText(file, stored, "index")
        origin: TextOrigin = "file" if is_text else "extracted"
        text = await (self._own_text(file) if is_text else self._extraction(file))
        if file.neutralize:
            text = await self.runtime.ai.neutralize_text(text, request, workflow_id=workflow_id)
        return DocumentText(file, text, origin)

    async def _own_text(self, file: File) -> str:
        data = await asyncio.to_thread(self.runtime.blobs.read_bytes, file.sha256)
        try:
            return decode_text(data, file.mime_type)
        except NotTextError:
            raise NotTextError(
                f"{file.name!r} is not text and no extractor reads {file.mime_type}"
            ) from None

    async def _extraction(self, file: File) -> str:
        # Imported here: the runtime builds this reader at start-up, the store only when used.
        from agentur.knowledge.store import knowledge_store

        settings = knowledge_store(self.runtime).settings
        key = (file.sha256, detect_format(file.name, file.mime_type))
        if (text := self._extracted.get(key)) is not None:
            self._extracted.move_to_end(key)
            return text
        text = await self._extract(file, settings)
        if settings.knowledge_section_cache_size:
            self._extracted[key] = text
            while len(self._extracted) > settings.knowledge_section_cache_size:
                self._extracted.popitem(last=False)
        return text

    async def _extract(self, file: File, settings: KnowledgeSettings) -> str:
        if file.size > settings.knowledge_max_extract_bytes:
            raise InvalidInputError(
                f"{file.name!r} is larger than {settings.knowledge_max_extract_bytes} bytes "
                "(AGENTUR_KNOWLEDGE_MAX_EXTRACT_BYTES) and is not extracted"
            )
        data = await asyncio.to_thread(self.runtime.blobs.read_bytes, file.sha256)
        ocr = self.runtime.all_settings.ocr
        # Parsing holds the GIL: beyond a small file it runs in the indexing worker process.
        if (
            settings.knowledge_index_executor == "process"
            and file.size > settings.knowledge_index_inline_bytes
        ):
            document = await run_in_pool(
                settings.knowledge_index_nice, extract, data, file.name, file.mime_type, ocr
            )
        else:
            document = await asyncio.to_thread(extract, data, file.name, file.mime_type, ocr)
        return document.text


async def _file_and_index(
    session: AsyncSession, request: RequestContext, file_id: str
) -> tuple[File, FileContentIndex | None]:
    row = (
        await session.execute(
            select(File, FileContentIndex)
            .outerjoin(FileContentIndex, FileContentIndex.file_id == File.id)
            .where(File.id == file_id, visible_files(request))
            .options(defer(FileContentIndex.extracted_text), defer(FileContentIndex.structure))
        )
    ).one_or_none()
    if row is None:
        raise NotFoundError(f"file {file_id} not found")
    return row[0], row[1]


async def _stored_extraction(
    session: AsyncSession, file: File, index: FileContentIndex | None
) -> str | None:
    """The index's text when it was made from the file's current bytes — and, for a file to
    be neutralized, neutralized."""
    if (
        index is None
        or index.status not in READABLE_STATUSES
        or index.content_sha256 != file.sha256
        or (file.neutralize and index.neutralization_status != "neutralized")
    ):
        return None
    await session.refresh(index, ["extracted_text"])
    return index.extracted_text
