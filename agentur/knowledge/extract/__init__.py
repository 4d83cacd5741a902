"""Extraction: bytes of a workspace file → one `Document` (UDM), whatever the format.

A file with no text to extract — a recording, a video, an archive, a binary no extractor reads —
raises `NotTextError`: it is never decoded into text (its index gets status `no_text`)."""

from __future__ import annotations

import json
from pathlib import PurePosixPath

from agentur.errors import InvalidInputError
from agentur.knowledge.extract.settings import OcrSettings
from agentur.knowledge.udm import Document
from agentur.workspace.text_window import NotTextError, decode_text

# Bump when an extractor changes its output: every file is then re-indexed.
# 2: OCR of scanned PDF pages and images; 3: binary files are no longer read as Latin-1 text.
PARSER_VERSION = 3

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
# Formats whose extraction starts from the file's own text.
TEXT_FORMATS = ("text", "markdown", "csv", "json")
# Media that never hold text to extract, whatever their bytes happen to decode to.
NO_TEXT_MIME_PREFIXES = ("audio/", "video/", "font/")


def detect_format(name: str, mime_type: str) -> str:
    suffix = PurePosixPath(name.lower()).suffix
    return SUFFIX_FORMATS.get(suffix) or MIME_FORMATS.get(mime_type, "text")


def no_text_reason(name: str, mime_type: str) -> str | None:
    """Why a file holds no text to extract, when its type alone tells (audio, video, fonts)."""
    if detect_format(name, mime_type) == "text" and mime_type.startswith(NO_TEXT_MIME_PREFIXES):
        return f"{mime_type} files hold no text"
    return None


def extract(data: bytes, name: str, mime_type: str, ocr: OcrSettings) -> Document:
    """The document model of a file (scans read by OCR under `ocr`); NotTextError when it holds
    no text, InvalidInputError when it cannot be read."""
    kind = detect_format(name, mime_type)
    if reason := no_text_reason(name, mime_type):
        raise NotTextError(reason)
    try:
        if kind == "pdf":
            from agentur.knowledge.extract.pdf import extract_pdf

            return extract_pdf(data, ocr)
        if kind == "image":
            from agentur.knowledge.extract.ocr import extract_image

            return extract_image(data, ocr)
        if kind == "docx":
            from agentur.knowledge.extract.docx import extract_docx

            return extract_docx(data)
        if kind == "xlsx":
            from agentur.knowledge.extract.tabular import extract_xlsx

            return extract_xlsx(data)
        if kind == "html":
            from agentur.knowledge.extract.html import extract_html

            return extract_html(data)
        if kind == "text":
            # Strict for types that do not claim to be text: an archive or an unknown binary
            # is not Latin-1 prose.
            try:
                text = decode_text(data, mime_type)
            except NotTextError:
                raise NotTextError(
                    f"the file is not text and no extractor reads {mime_type}"
                ) from None
        else:
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
