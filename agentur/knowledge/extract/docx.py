"""DOCX → UDM with python-docx (MIT, the maintained standard for reading Word files).

Headings come from the paragraph styles (`Title`, `Heading N`), lists from list styles or
numbering, tables in document order. DOCX has no fixed pages; explicit page breaks are counted
so a block after the n-th break reports page n + 1.
"""

from __future__ import annotations

import io

from agentur.knowledge.extract.builder import DocumentBuilder
from agentur.knowledge.udm import ContentType, Document

W = "{http://schemas.openxmlformats.org/wordprocessingml/2006/main}"


def _heading_level(style_name: str) -> int | None:
    name = style_name.lower()
    if name == "title":
        return 1
    if name.startswith("heading"):
        digits = name.removeprefix("heading").strip()
        return int(digits) if digits.isdigit() else 1
    return None


def extract_docx(data: bytes) -> Document:
    import docx
    from docx.table import Table
    from docx.text.paragraph import Paragraph

    document = docx.Document(io.BytesIO(data))
    builder = DocumentBuilder("docx")
    page = 1
    pending_list: list[str] = []

    def flush_list() -> None:
        if pending_list:
            builder.block(ContentType.list, "\n".join(pending_list), page)
            pending_list.clear()

    for element in document.element.body.iterchildren():
        if element.tag == f"{W}p":
            paragraph = Paragraph(element, document)
            text = paragraph.text.strip()
            style = paragraph.style.name if paragraph.style is not None else ""
            level = _heading_level(style)
            is_list = "list" in style.lower() or element.find(f"{W}pPr/{W}numPr") is not None
            if text and not (is_list and level is None):
                flush_list()
            if text and level is not None:
                builder.heading(text, level, page)
            elif text and is_list:
                pending_list.append(f"- {text}")
            elif text:
                builder.block(ContentType.text, text, page)
            page += len(element.findall(f".//{W}br[@{W}type='page']"))
        elif element.tag == f"{W}tbl":
            flush_list()
            table = Table(element, document)
            builder.table([[cell.text for cell in row.cells] for row in table.rows], page)
    flush_list()
    builder.page_count = page
    return builder.build()
