"""Name rules and the free name for duplicates (pure functions, no database)."""

from __future__ import annotations

import pytest

from agentur.errors import InvalidInputError
from agentur.workspace.names import free_name, split_extension, validate_name


@pytest.mark.parametrize(
    ("raw", "expected"),
    [
        ("  notes.txt ", "notes.txt"),
        ("Zu\u0308rich.md", "Zürich.md"),  # decomposed umlaut is stored composed (NFC)
        ("日本語 😀.txt", "日本語 😀.txt"),
        (".env", ".env"),
        ("a.b.c", "a.b.c"),
    ],
)
def test_valid_names_are_normalized(raw: str, expected: str) -> None:
    assert validate_name(raw, 255) == expected


@pytest.mark.parametrize(
    "raw", ["", " ", ".", "..", "../x", "x/..", "a/b", "a\\b", "nul\x00", "del\x7f", "c1\x85c1"]
)
def test_invalid_names_are_refused(raw: str) -> None:
    with pytest.raises(InvalidInputError):
        validate_name(raw, 255)


def test_length_counts_characters() -> None:
    assert validate_name("ü" * 10, 10) == "ü" * 10
    with pytest.raises(InvalidInputError, match="10"):
        validate_name("ü" * 11, 10, "folder")


@pytest.mark.parametrize(
    ("name", "taken", "expected"),
    [
        ("a.txt", set(), "a.txt"),
        ("a.txt", {"a.txt"}, "a (2).txt"),
        ("a.txt", {"a.txt", "a (2).txt"}, "a (3).txt"),
        ("a (2).txt", {"a (2).txt", "a.txt"}, "a (3).txt"),
        ("README", {"README"}, "README (2)"),
        (".env", {".env"}, ".env (2)"),
        ("x.tar.gz", {"x.tar.gz"}, "x.tar (2).gz"),
    ],
)
def test_free_name(name: str, taken: set[str], expected: str) -> None:
    assert free_name(name, taken) == expected


def test_split_extension() -> None:
    assert split_extension("report.final.pdf") == ("report.final", ".pdf")
    assert split_extension(".bashrc") == (".bashrc", "")
