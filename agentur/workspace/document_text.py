"""The text of any workspace file, for the tools that read text (summarize, translate,
neutralize_data, read_file): a port beside the files it reads. The knowledge store implements
it — a text file's own text; for PDF, DOCX, XLSX, HTML and scans the stored extraction, or an
extraction made on demand — structurally, without importing the tools, and the runtime composes
it (`RuntimeParts.documents`), so no tool imports the store for it."""

from __future__ import annotations

from typing import Protocol

from agentur.context import RequestContext
from agentur.storage.models import File


class DocumentText(Protocol):
    @property
    def file(self) -> File: ...

    @property
    def text(self) -> str:
        """As a model may see it: a file marked `neutralize` is only ever handed out
        neutralized."""
        ...

    @property
    def origin(self) -> str:
        """`file` (its own text), `index` (the stored extraction) or `extracted` (extracted
        for this call: not indexed yet, or changed since)."""
        ...


class DocumentTexts(Protocol):
    async def read(
        self, request: RequestContext, file_id: str, *, workflow_id: str | None
    ) -> DocumentText:
        """The file's text (visibility checked: another tenant's file is not found);
        `NotTextError` for a file with no text (a recording, an archive, a binary)."""
        ...
