"""Rendered documents opened with their own libraries: the content, umlauts included, is there
in each format; tables are real tables."""

from __future__ import annotations

import io
import shutil
import subprocess
from pathlib import Path

import pdfplumber
from docx import Document as open_docx
from openpyxl import load_workbook

from agentur.rendering.blocks import Document, Heading, Table, parse_markdown
from agentur.rendering.chart import ChartSpec, render_chart
from agentur.rendering.to_docx import render_docx
from agentur.rendering.to_html import render_html
from agentur.rendering.to_pdf import render_pdf
from agentur.rendering.to_xlsx import render_xlsx

REPORT = """# Quartalsbericht Zürich

Die Umsätze im Süden stiegen — Grüße aus Genève.

- Äpfel
- Öl

| Region | Betrag |
| --- | --- |
| Süd | 5 |
| Nord | 17 |

![Umsatz](chart-1)
"""


def _document() -> Document:
    png, _ = render_chart(ChartSpec("bar", ["Nord", "Süd"], {"Betrag": [17, 5]}))
    return Document(parse_markdown(REPORT), images={"chart-1": png})


def test_markdown_becomes_blocks() -> None:
    blocks = parse_markdown(REPORT)
    assert blocks[0] == Heading(1, "Quartalsbericht Zürich")
    assert Table(["Region", "Betrag"], [["Süd", "5"], ["Nord", "17"]]) in blocks


def test_pdf_keeps_umlauts_and_the_table(tmp_path: Path) -> None:
    data = render_pdf(_document())
    with pdfplumber.open(io.BytesIO(data)) as pdf:
        page = pdf.pages[0]
        text = page.extract_text()
        tables = page.extract_tables()
        assert len(page.images) == 1  # the chart
    assert "Quartalsbericht Zürich" in text
    assert "Die Umsätze im Süden stiegen — Grüße aus Genève." in text
    assert [["Region", "Betrag"], ["Süd", "5"], ["Nord", "17"]] in tables
    if shutil.which("pdftotext"):
        path = tmp_path / "report.pdf"
        path.write_bytes(data)
        extracted = subprocess.run(
            ["pdftotext", str(path), "-"], capture_output=True, text=True, check=True
        ).stdout
        assert "Grüße aus Genève" in extracted


def test_docx_has_headings_list_table_and_picture() -> None:
    docx = open_docx(io.BytesIO(render_docx(_document())))
    paragraphs = [(p.style.name, p.text) for p in docx.paragraphs if p.text]
    assert ("Heading 1", "Quartalsbericht Zürich") in paragraphs
    assert ("List Bullet", "Äpfel") in paragraphs
    cells = [[cell.text for cell in row.cells] for row in docx.tables[0].rows]
    assert cells == [["Region", "Betrag"], ["Süd", "5"], ["Nord", "17"]]
    assert len(docx.inline_shapes) == 1


def test_xlsx_cells_hold_text_and_numbers() -> None:
    sheet = load_workbook(io.BytesIO(render_xlsx(_document()))).active
    values = [row for row in sheet.iter_rows(values_only=True) if any(row)]
    assert values[0][0] == "Quartalsbericht Zürich"
    assert ("Süd", 5) in [tuple(row[:2]) for row in values]
    assert sheet.title == "Quartalsbericht Zürich"


def test_html_escapes_text_and_inlines_the_image() -> None:
    document = _document()
    document.blocks.append(parse_markdown("<script>alert(1)</script> & Co")[0])
    page = render_html(document).decode()
    assert "<h1>Quartalsbericht Zürich</h1>" in page
    assert "<td>Süd</td>" in page
    assert "<script>" not in page and "&lt;script&gt;" in page
    assert '<img src="data:image/png;base64,' in page
