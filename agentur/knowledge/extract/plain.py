"""Plain text → UDM: paragraphs split at blank lines; a form feed starts a new page."""

from __future__ import annotations

import re

from agentur.knowledge.extract.builder import DocumentBuilder
from agentur.knowledge.udm import ContentType, Document

BULLET = re.compile(r"^\s*([-*•]|\d+[.)])\s+")


def extract_plain(text: str) -> Document:
    builder = DocumentBuilder("text")
    pages = text.split("\f")
    for number, page in enumerate(pages, start=1):
        for paragraph in re.split(r"\n\s*\n", page):
            lines = [line for line in paragraph.splitlines() if line.strip()]
            if not lines:
                continue
            kind = ContentType.list if all(BULLET.match(x) for x in lines) else ContentType.text
            builder.block(kind, "\n".join(lines), number if len(pages) > 1 else None)
    builder.page_count = len(pages) if len(pages) > 1 else None
    return builder.build()
