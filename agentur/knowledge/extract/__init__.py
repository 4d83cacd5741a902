"""Extraction (K1, K2): bytes of a workspace file → one `Document` (UDM), whatever the format."""

from __future__ import annotations

import json
from pathlib import PurePosixPath

from agentur.errors import InvalidInputError
from agentur.knowledge.udm import Document
from agentur.workspace.text_window import decode_text

# Bump when an extractor changes its output: every file is then re-indexed.
PARSER_VERSION = 2  # 2: OCR of scanned PDF pages and images

SUFFIX_FORMATS = {
    ".pdf": "pdf",
    ".docx": "docx",
    ".html": "html",
    ".htm": "html",
    ".md": "markdown",
    ".markdown": "markdown",
    ".csv": "csv",
    ".tsv": "csv",
    ".xlsx": "xlsx",
    ".json": "json",
    ".png": "image",
    ".jpg": "image",
    ".jpeg": "image",
    ".tif": "image",
    ".tiff": "image",
}
MIME_FORMATS = {
    "application/pdf": "pdf",
    "application/vnd.openxmlformats-officedocument.wordprocessingml.document": "docx",
    "text/html": "html",
    "text/markdown": "markdown",
    "text/csv": "csv",
    "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet": "xlsx",
    "application/json": "json",
    "image/png": "image",
    "image/jpeg": "image",
    "image/tiff": "image",
}


def detect_format(name: str, mime_type: str) -> str:
    suffix = PurePosixPath(name.lower()).suffix
    return SUFFIX_FORMATS.get(suffix) or MIME_FORMATS.get(mime_type, "text")


def extract(data: bytes, name: str, mime_type: str) -> Document:
    """The document model of a file; InvalidInputError when it cannot be read."""
    kind = detect_format(name, mime_type)
    try:
        if kind == "pdf":
            from agentur.knowledge.extract.pdf import extract_pdf

            return extract_pdf(data)
        if kind == "image":
            from agentur.knowledge.extract.ocr import extract_image

            return extract_image(data)
        if kind == "docx":
            from agentur.knowledge.extract.docx import extract_docx

            return extract_docx(data)
        if kind == "xlsx":
            from agentur.knowledge.extract.tabular import extract_xlsx

            return extract_xlsx(data)
        if kind == "html":
            from agentur.knowledge.extract.html import extract_html

            return extract_html(data)
        text = decode_text(data, "text/plain")
        if kind == "markdown":
            from agentur.knowledge.extract.markdown import extract_markdown

            return extract_markdown(text)
        if kind == "csv":
            from agentur.knowledge.extract.tabular import extract_csv

            return extract_csv(text, name)
        if kind == "json":
            from agentur.knowledge.extract.json_doc import extract_json

            return extract_json(text)
        from agentur.knowledge.extract.plain import extract_plain

        return extract_plain(text)
    except InvalidInputError:
        raise
    except (ValueError, KeyError, OSError, json.JSONDecodeError, Exception) as error:  # noqa: BLE001
        # Parsers raise their own error zoo on broken files; the index records the reason.
        raise InvalidInputError(f"cannot extract {name!r} as {kind}: {error}") from error
