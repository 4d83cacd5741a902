"""Blocks to XLSX with openpyxl: one sheet, text blocks in column A and each table as a block
of real cells (numbers stay numbers, so the sheet can compute with them)."""

from __future__ import annotations

import io

from openpyxl import Workbook
from openpyxl.styles import Font

from agentur.rendering.blocks import BulletList, Code, Document, Heading, Paragraph, Table

SHEET_TITLE_CHARS = 31  # Excel's limit


def _cell_value(text: str) -> str | int | float:
    try:
        return int(text)
    except ValueError:
        pass
    try:
        return float(text)
    except ValueError:
        return text


def render_xlsx(document: Document) -> bytes:
    workbook = Workbook()
    sheet = workbook.active
    assert sheet is not None
    sheet.title = "".join(c for c in document.title if c not in "[]:*?/\\")[:SHEET_TITLE_CHARS]
    bold = Font(bold=True)
    for block in document.blocks:
        if isinstance(block, Heading):
            sheet.append([block.text])
            sheet.cell(sheet.max_row, 1).font = bold
        elif isinstance(block, Paragraph | Code):
            sheet.append([block.text])
        elif isinstance(block, BulletList):
            for item in block.items:
                sheet.append([item])
        elif isinstance(block, Table):
            sheet.append(block.header)
            for column in range(1, len(block.header) + 1):
                sheet.cell(sheet.max_row, column).font = bold
            for row in block.rows:
                sheet.append([_cell_value(text) for text in row])
        sheet.append([])
    out = io.BytesIO()
    workbook.save(out)
    return out.getvalue()
