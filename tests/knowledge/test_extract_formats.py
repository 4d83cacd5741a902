"""Every format extracts headings, tables and (where the format has them) page numbers."""

from __future__ import annotations

from agentur.knowledge.extract import extract
from agentur.knowledge.extract.settings import OcrSettings
from agentur.knowledge.udm import ContentType, Document
from tests.knowledge import sample_files

OCR = OcrSettings()  # read from the environment, as the settings root reads them


def _of(document: Document, kind: ContentType) -> list:
    return [b for b in document.blocks if b.content_type is kind]


def _offsets_exact(document: Document) -> None:
    for section in document.sections:
        assert document.text[section.start :].startswith(section.title)
    for block in document.blocks:
        assert document.block_text(block).strip()


def test_pdf_headings_tables_pages() -> None:
    document = extract(sample_files.pdf_bytes(), "report.pdf", "application/pdf", OCR)
    assert document.page_count == 2
    titles = {(s.title, s.level, s.page) for s in document.sections}
    assert ("Annual Report", 1, 1) in titles and ("Figures", 2, 2) in titles
    (table,) = _of(document, ContentType.table)
    assert table.rows == (("Region", "Revenue"), ("North", "120"), ("South", "80"))
    assert table.page == 2 and table.heading_path == ("Annual Report", "Figures")
    text_pages = {b.page for b in _of(document, ContentType.text)}
    assert text_pages == {1, 2}
    _offsets_exact(document)


def test_docx_headings_tables_lists_page_breaks() -> None:
    document = extract(sample_files.docx_bytes(), "handbook.docx", "application/octet-stream", OCR)
    assert [s.path for s in document.sections] == [
        ("Handbook",),
        ("Handbook", "Holidays"),
        ("Handbook", "Contacts"),
    ]
    (table,) = _of(document, ContentType.table)
    assert table.rows == (("Name", "Phone"), ("Desk", "100")) and table.page == 2
    (items,) = _of(document, ContentType.list)
    assert "First item" in document.block_text(items)
    assert _of(document, ContentType.text)[0].page == 1
    _offsets_exact(document)


def test_xlsx_and_csv_tables() -> None:
    workbook = extract(sample_files.xlsx_bytes(), "book.xlsx", "", OCR)
    assert [s.title for s in workbook.sections] == ["Prices", "Stock"]
    tables = _of(workbook, ContentType.table)
    assert tables[0].rows == (("Item", "Price"), ("Apple", "2"))
    assert tables[1].heading_path == ("Stock",)
    sheet = extract(sample_files.CSV.encode(), "people.csv", "text/csv", OCR)
    assert _of(sheet, ContentType.table)[0].rows[1] == ("Anna", "Bern")


def test_html_markdown_json_plain() -> None:
    html = extract(sample_files.HTML, "page.html", "text/html", OCR)
    assert [s.path for s in html.sections] == [("Guide",), ("Guide", "Table")]
    assert _of(html, ContentType.table)[0].rows == (("Key", "Value"), ("a", "1"))
    assert {b.content_type for b in html.blocks} >= {
        ContentType.list,
        ContentType.code,
        ContentType.image,
    }
    assert "var x" not in html.text

    markdown = extract(sample_files.MARKDOWN.encode(), "guide.md", "text/markdown", OCR)
    assert [s.path for s in markdown.sections] == [("Guide",), ("Guide", "Setup")]
    assert _of(markdown, ContentType.table)[0].rows == (("Key", "Value"), ("a", "1"))
    assert markdown.block_text(_of(markdown, ContentType.code)[0]) == "agentur serve"
    assert _of(markdown, ContentType.image) and _of(markdown, ContentType.list)

    data = extract(sample_files.JSON.encode(), "config.json", "application/json", OCR)
    assert ("servers",) in [s.path for s in data.sections]
    assert _of(data, ContentType.table)[0].rows == (("host", "port"), ("a", "1"))

    plain = extract(sample_files.PLAIN.encode(), "notes.txt", "text/plain", OCR)
    assert plain.page_count == 2
    assert [b.page for b in plain.blocks] == [1, 1, 2]
    assert plain.blocks[1].content_type is ContentType.list
