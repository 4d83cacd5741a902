"""Data-at-rest neutralization of an extracted document, before anything is stored.

The gateway's `neutralize_text` does the work (there is exactly one neutralizer); this module
only walks the document in order and rebuilds it from the neutralized pieces, so every offset
of the stored document points into the neutralized text.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable

from agentur.knowledge.extract.builder import DocumentBuilder
from agentur.knowledge.udm import Block, ContentType, Document, Section

Neutralize = Callable[[str], Awaitable[str]]


async def neutralize_document(document: Document, neutralize: Neutralize) -> Document:
    cache: dict[str, str] = {}

    async def clean(text: str) -> str:
        if not text.strip():
            return text
        if text not in cache:
            cache[text] = await neutralize(text)
        return cache[text]

    events: list[tuple[int, int, Section | Block]] = [(s.start, 0, s) for s in document.sections]
    events += [(b.start, 1, b) for b in document.blocks]
    events.sort(key=lambda event: (event[0], event[1]))
    builder = DocumentBuilder(document.format)
    builder.page_count = document.page_count
    for _, _, item in events:
        if isinstance(item, Section):
            builder.heading(await clean(item.title), item.level, item.page)
        elif item.content_type is ContentType.table and item.rows is not None:
            rows = [[await clean(cell) for cell in row] for row in item.rows]
            builder.table(rows, item.page)
        else:
            builder.block(item.content_type, await clean(document.block_text(item)), item.page)
    return builder.build()
