"""Windowed reading of text: a slice plus the total length, never a silent truncation.

Offsets and limits count Unicode code points, so a window never splits a multi-byte character.
"""

from __future__ import annotations

from dataclasses import dataclass

from agentur.errors import InvalidInputError

TEXT_MIME_PREFIXES = ("text/",)
TEXT_MIME_TYPES = {
    "application/json",
    "application/xml",
    "application/yaml",
    "application/x-yaml",
    "application/javascript",
    "application/x-ndjson",
    "application/sql",
    "application/toml",
}


class NotTextError(InvalidInputError):
    """The file's bytes are not text (a PDF, an image, a recording): a document reader or the
    knowledge store's extraction is what reads it."""


@dataclass(frozen=True, slots=True)
class TextWindow:
    content: str
    offset: int
    limit: int
    total_length: int

    @property
    def next_offset(self) -> int | None:
        end = self.offset + len(self.content)
        return end if end < self.total_length else None


def decode_text(data: bytes, mime_type: str) -> str:
    """The bytes as text, or NotTextError when the file is not text."""
    looks_textual = mime_type.startswith(TEXT_MIME_PREFIXES) or mime_type in TEXT_MIME_TYPES
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError as error:
        if looks_textual:
            try:
                return data.decode("latin-1")
            except UnicodeDecodeError:
                pass
        raise NotTextError(
            f"the file is not UTF-8 text (mime type {mime_type}); read it with a document reader"
        ) from error
    if "\x00" in text:
        raise NotTextError(f"the file is binary (mime type {mime_type})")
    return text


def window(text: str, offset: int, limit: int, max_limit: int) -> TextWindow:
    if offset < 0:
        raise InvalidInputError("offset must be 0 or more")
    if limit < 1 or limit > max_limit:
        raise InvalidInputError(f"limit must be between 1 and {max_limit}")
    return TextWindow(
        content=text[offset : offset + limit],
        offset=offset,
        limit=limit,
        total_length=len(text),
    )
