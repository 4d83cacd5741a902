"""PDF → UDM with pdfplumber (MIT, maintained, pure Python over pdfminer.six).

Chosen over pypdf because it finds tables and exposes font sizes (headings are lines set
larger than the body text), and over PyMuPDF because of PyMuPDF's AGPL licence.
"""

from __future__ import annotations

import io
from collections import Counter
from typing import Any

from agentur.knowledge.extract.builder import DocumentBuilder
from agentur.knowledge.extract.ocr import OcrLine, add_ocr_page, ocr_lines, unavailable_reason
from agentur.knowledge.extract.settings import OcrSettings
from agentur.knowledge.udm import ContentType, Document

HEADING_RATIO = 1.15  # a line this much larger than the body size is a heading
PARAGRAPH_GAP_RATIO = 0.8  # a vertical gap above this × line height starts a new paragraph


def _line_size(line: dict[str, Any]) -> float:
    sizes = [round(c.get("size", 0.0), 1) for c in line.get("chars", [])]
    return max(sizes) if sizes else 0.0


def _inside(obj: dict[str, Any], boxes: list[tuple[float, float, float, float]]) -> bool:
    x = (obj["x0"] + obj["x1"]) / 2
    y = (obj["top"] + obj["bottom"]) / 2
    return any(x0 <= x <= x1 and top <= y <= bottom for x0, top, x1, bottom in boxes)


def _ocr_if_scanned(page: Any, pages_read: int, ocr: OcrSettings) -> list[OcrLine] | None:
    """OCR lines of a page without a text layer (a scan), or None for a page with text. With
    Tesseract missing a scan simply stays empty, as before OCR existed."""
    if len(page.chars) >= ocr.ocr_min_page_chars or pages_read >= ocr.ocr_max_pages:
        return None
    if unavailable_reason(ocr) is not None:
        return None
    return ocr_lines(page.to_image(resolution=ocr.ocr_dpi).original.convert("RGB"), ocr)


def extract_pdf(data: bytes, ocr: OcrSettings) -> Document:
    import pdfplumber

    builder = DocumentBuilder("pdf")
    with pdfplumber.open(io.BytesIO(data)) as pdf:
        builder.page_count = len(pdf.pages)
        pages = []
        sizes: Counter[float] = Counter()
        scanned: dict[int, list[OcrLine]] = {}
        for number, page in enumerate(pdf.pages, start=1):
            if (lines := _ocr_if_scanned(page, len(scanned), ocr)) is not None:
                scanned[number] = lines
                pages.append(([], []))
                continue
            tables = page.find_tables()
            boxes = [t.bbox for t in tables]
            outside = page.filter(lambda obj, boxes=boxes: not _inside(obj, boxes))  # type: ignore[misc]
            lines = outside.extract_text_lines(return_chars=True)
            for line in lines:
                sizes[_line_size(line)] += len(line["text"])
            pages.append((lines, [(t.bbox[1], t.extract()) for t in tables]))
        body = sizes.most_common(1)[0][0] if sizes else 0.0
        heading_sizes = sorted(
            {s for s in sizes if body and s >= body * HEADING_RATIO}, reverse=True
        )
        for number, (lines, tables) in enumerate(pages, start=1):
            if number in scanned:
                add_ocr_page(builder, number, scanned[number])
            else:
                _page_blocks(builder, number, lines, tables, heading_sizes)
    return builder.build()


def _page_blocks(
    builder: DocumentBuilder,
    number: int,
    lines: list[dict[str, Any]],
    tables: list[tuple[float, list[list[str | None]]]],
    heading_sizes: list[float],
) -> None:
    items: list[tuple[float, str, Any]] = [(line["top"], "line", line) for line in lines]
    items += [(top, "table", rows) for top, rows in tables]
    items.sort(key=lambda item: item[0])
    paragraph: list[str] = []
    last_bottom: float | None = None

    def flush() -> None:
        if paragraph:
            text = "\n".join(paragraph)
            kind = ContentType.list if all(_is_bullet(p) for p in paragraph) else ContentType.text
            builder.block(kind, text, number)
            paragraph.clear()

    for top, kind, payload in items:
        if kind == "table":
            flush()
            builder.table([[cell or "" for cell in row] for row in payload], number)
            last_bottom = None
            continue
        size = _line_size(payload)
        if size in heading_sizes:
            flush()
            builder.heading(payload["text"], heading_sizes.index(size) + 1, number)
            last_bottom = payload["bottom"]
            continue
        height = payload["bottom"] - payload["top"]
        if last_bottom is not None and top - last_bottom > height * PARAGRAPH_GAP_RATIO:
            flush()
        paragraph.append(payload["text"])
        last_bottom = payload["bottom"]
    flush()


def _is_bullet(line: str) -> bool:
    return line.lstrip()[:2] in {"- ", "* ", "• "} or line.lstrip().startswith("•")
