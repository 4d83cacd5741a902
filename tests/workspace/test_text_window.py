"""Windowing and text decoding (pure functions, no database)."""

from __future__ import annotations

import pytest

from agentur.errors import InvalidInputError
from agentur.workspace.text_window import decode_text, window


def test_window_counts_code_points() -> None:
    text = "a😀b日c"
    result = window(text, 1, 3, 10)
    assert (result.content, result.total_length, result.next_offset) == ("😀b日", 5, 4)
    assert window(text, 4, 3, 10).next_offset is None
    assert window(text, 99, 3, 10).content == ""


@pytest.mark.parametrize(("offset", "limit"), [(-1, 5), (0, 0), (0, 11)])
def test_window_refuses_bad_arguments(offset: int, limit: int) -> None:
    with pytest.raises(InvalidInputError):
        window("abc", offset, limit, 10)


def test_decode_text() -> None:
    assert decode_text("\ufeffGrüße".encode(), "text/plain") == "Grüße"  # BOM dropped
    # A text file in Latin-1 is still readable.
    assert decode_text("Grüße".encode("latin-1"), "text/plain") == "Grüße"
    with pytest.raises(InvalidInputError, match="not UTF-8"):
        decode_text(b"\xff\xfe\x00\x01", "application/octet-stream")
    with pytest.raises(InvalidInputError, match="binary"):
        decode_text(b"a\x00b", "application/octet-stream")
