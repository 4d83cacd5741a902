"""Blocks to DOCX with python-docx: real headings, list styles and tables, so the document
stays editable in Word."""

from __future__ import annotations

import io

from docx import Document as new_docx
from docx.shared import Cm

from agentur.rendering.blocks import (
    BulletList,
    Code,
    Document,
    Heading,
    Image,
    Paragraph,
    Table,
)


def render_docx(document: Document) -> bytes:
    docx = new_docx()
    for block in document.blocks:
        if isinstance(block, Heading):
            docx.add_heading(block.text, level=min(block.level, 9))
        elif isinstance(block, Paragraph):
            docx.add_paragraph(block.text)
        elif isinstance(block, BulletList):
            style = "List Number" if block.ordered else "List Bullet"
            for item in block.items:
                docx.add_paragraph(item, style=style)
        elif isinstance(block, Table):
            columns = max([len(block.header), *(len(row) for row in block.rows)])
            table = docx.add_table(rows=1 + len(block.rows), cols=columns)
            table.style = "Table Grid"
            for row_index, row in enumerate([block.header, *block.rows]):
                for column, text in enumerate(row):
                    table.cell(row_index, column).text = text
        elif isinstance(block, Code):
            docx.add_paragraph(block.text, style="No Spacing")
        elif isinstance(block, Image) and block.source in document.images:
            docx.add_picture(io.BytesIO(document.images[block.source]), width=Cm(15))
    out = io.BytesIO()
    docx.save(out)
    return out.getvalue()
