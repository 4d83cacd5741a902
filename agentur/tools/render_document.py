"""`render_document`: Markdown (headings, paragraphs, lists, GFM tables, code, images by
workspace file id) to a DOCX, PDF, XLSX or HTML workspace file."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from enum import StrEnum
from pathlib import PurePath
from typing import Any

from pydantic import BaseModel, Field

from agentur.errors import InvalidInputError
from agentur.rendering.blocks import Document, Image, parse_markdown
from agentur.rendering.to_docx import render_docx
from agentur.rendering.to_html import render_html
from agentur.rendering.to_pdf import render_pdf
from agentur.rendering.to_xlsx import render_xlsx
from agentur.tools.tool import Tool, ToolContext
from agentur.tools.workspace_access import file_service
from agentur.tools.workspace_files import describe

MAX_CONTENT_CHARS = 500_000
MAX_IMAGES = 20
IMAGE_MAGIC = (b"\x89PNG\r\n\x1a\n", b"\xff\xd8\xff")


class DocumentFormat(StrEnum):
    docx = "docx"
    pdf = "pdf"
    xlsx = "xlsx"
    html = "html"


RENDERERS: dict[DocumentFormat, Callable[[Document], bytes]] = {
    DocumentFormat.docx: render_docx,
    DocumentFormat.pdf: render_pdf,
    DocumentFormat.xlsx: render_xlsx,
    DocumentFormat.html: render_html,
}


class RenderDocumentArguments(BaseModel):
    content: str = Field(
        min_length=1,
        max_length=MAX_CONTENT_CHARS,
        description="Markdown: # headings, paragraphs, lists, | tables |, ``` code, and "
        "![caption](file_id) for a PNG/JPEG workspace file such as a chart.",
    )
    format: DocumentFormat
    name: str = Field(min_length=1, description="File name; the format's extension is added.")
    folder_id: str | None = None


def file_name(name: str, format: DocumentFormat) -> str:
    return name if PurePath(name).suffix.lower() == f".{format.value}" else f"{name}.{format}"


async def load_images(document: Document, context: ToolContext) -> None:
    sources = list(dict.fromkeys(b.source for b in document.blocks if isinstance(b, Image)))
    if len(sources) > MAX_IMAGES:
        raise InvalidInputError(f"at most {MAX_IMAGES} images per document, got {len(sources)}")
    async with file_service(context) as files:
        for source in sources:
            file, data = await files.read_bytes(source)
            if not data.startswith(IMAGE_MAGIC):
                raise InvalidInputError(f"image {source} ({file.name}) is not a PNG or JPEG file")
            document.images[source] = data


async def render_document(args: RenderDocumentArguments, context: ToolContext) -> dict[str, Any]:
    document = Document(parse_markdown(args.content))
    await load_images(document, context)
    data = await asyncio.to_thread(RENDERERS[args.format], document)  # CPU work
    async with file_service(context) as files:
        stored = await files.write_bytes(
            file_name(args.name, args.format), data, folder_id=args.folder_id
        )
        await files.commit()
        return {**describe(stored), "format": args.format.value, "blocks": len(document.blocks)}


TOOLS: list[Tool] = [
    Tool(
        "render_document",
        "Render Markdown (headings, lists, tables, images by file id) to a new DOCX, PDF, XLSX "
        "or HTML workspace file.",
        RenderDocumentArguments,
        render_document,
        toolbox="ai",
    )
]
