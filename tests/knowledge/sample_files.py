"""Real sample documents, generated with the libraries of the `test` extra."""

from __future__ import annotations

import io
import json
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from PIL.Image import Image


def pdf_bytes() -> bytes:
    from fpdf import FPDF

    pdf = FPDF()
    pdf.set_font("Helvetica")
    pdf.add_page()
    pdf.set_font_size(22)
    pdf.cell(text="Annual Report", new_x="LMARGIN", new_y="NEXT")
    pdf.set_font_size(11)
    pdf.multi_cell(0, 6, "Revenue grew strongly in the alpine region this year.")
    pdf.add_page()
    pdf.set_font_size(16)
    pdf.cell(text="Figures", new_x="LMARGIN", new_y="NEXT")
    pdf.set_font_size(11)
    pdf.multi_cell(0, 6, "The table lists revenue per region.")
    with pdf.table() as table:
        for row in (("Region", "Revenue"), ("North", "120"), ("South", "80")):
            cells = table.row()
            for value in row:
                cells.cell(value)
    return bytes(pdf.output())


def scanned_page(lines: list[str]) -> Image:
    """A page 'scanned' at 150 dpi: black text on white, as a flatbed scanner gives it."""
    import matplotlib
    from PIL import Image, ImageDraw, ImageFont

    page = Image.new("L", (1240, 1754), 255)
    draw = ImageDraw.Draw(page)
    font = ImageFont.truetype(f"{matplotlib.get_data_path()}/fonts/ttf/DejaVuSans.ttf", 36)
    for number, line in enumerate(lines):
        draw.text((120, 200 + number * 70), line, fill=0, font=font)
    return page


def scanned_png(lines: list[str]) -> bytes:
    photo = io.BytesIO()
    scanned_page(lines).save(photo, "PNG")
    return photo.getvalue()


def docx_bytes() -> bytes:
    import docx
    from docx.enum.text import WD_BREAK

    document = docx.Document()
    document.add_heading("Handbook", level=1)
    document.add_paragraph("Welcome to the team handbook.")
    document.add_heading("Holidays", level=2)
    paragraph = document.add_paragraph("Everyone gets twenty-five days.")
    paragraph.add_run().add_break(WD_BREAK.PAGE)
    document.add_heading("Contacts", level=2)
    table = document.add_table(rows=2, cols=2)
    for row, values in zip(table.rows, (("Name", "Phone"), ("Desk", "100")), strict=True):
        for cell, value in zip(row.cells, values, strict=True):
            cell.text = value
    document.add_paragraph("First item", style="List Bullet")
    document.add_paragraph("Second item", style="List Bullet")
    buffer = io.BytesIO()
    document.save(buffer)
    return buffer.getvalue()


def xlsx_bytes() -> bytes:
    import openpyxl

    workbook = openpyxl.Workbook()
    sheet = workbook.active
    sheet.title = "Prices"
    sheet.append(["Item", "Price"])
    sheet.append(["Apple", 2])
    second = workbook.create_sheet("Stock")
    second.append(["Item", "Count"])
    second.append(["Pear", 7])
    buffer = io.BytesIO()
    workbook.save(buffer)
    return buffer.getvalue()


HTML = (
    b"<html><head><title>Page</title><script>var x = 1;</script></head><body>"
    b"<h1>Guide</h1><p>Intro <b>text</b>.</p><h2>Table</h2>"
    b"<table><tr><th>Key</th><th>Value</th></tr><tr><td>a</td><td>1</td></tr></table>"
    b"<ul><li>one</li><li>two</li></ul><pre>print('hi')</pre><img src='x.png' alt='Diagram'>"
    b"</body></html>"
)
MARKDOWN = (
    "# Guide\n\nIntro text.\n\n## Setup\n\n- install\n- run\n\n"
    "| Key | Value |\n| --- | --- |\n| a | 1 |\n\n```sh\nagentur serve\n```\n\n![Diagram](d.png)\n"
)
CSV = "name;city\nAnna;Bern\nLuca;Lugano\n"
JSON = json.dumps({"title": "Config", "servers": [{"host": "a", "port": 1}], "owner": {"x": [1]}})
PLAIN = "First page paragraph.\n\n- a\n- b\n\fSecond page paragraph."
