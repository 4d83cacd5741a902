"""Name rules and the free name for duplicates (pure functions, no database)."""

from __future__ import annotations

import re
import sys
import unicodedata

import pytest
from hypothesis import example, given
from hypothesis import strategies as st

from agentur.errors import InvalidInputError
from agentur.names import INVISIBLE_CLASS
from agentur.workspace.file_attributes import validate_tags
from agentur.workspace.names import NAME_PATTERN, free_name, split_extension, validate_name


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


@pytest.mark.parametrize(
    ("raw", "code"),
    [
        ("invoice\u202etxt.exe", "U+202E"),  # right-to-left override: shows "invoiceexe.txt"
        ("pay\u200bment.pdf", "U+200B"),  # zero-width space
        ("a\u2066b", "U+2066"),  # left-to-right isolate
        ("\ufeffreport.txt", "U+FEFF"),  # zero-width no-break space (BOM)
        ("x\u200dy", "U+200D"),  # zero-width joiner
        ("soft\xadhyphen", "U+00AD"),
    ],
)
def test_invisible_characters_are_refused_by_name(raw: str, code: str) -> None:
    with pytest.raises(InvalidInputError, match=re.escape(code)):
        validate_name(raw, 255)
    with pytest.raises(InvalidInputError, match=re.escape(code)):
        validate_tags([raw])


def test_invisible_class_covers_every_control_and_format_character() -> None:
    invisible = re.compile(f"[{INVISIBLE_CLASS}]")
    categories = {"Cc", "Cf", "Zl", "Zp"}
    missed = [
        f"U+{code:04X}"
        for code in range(sys.maxunicode + 1)
        if unicodedata.category(chr(code)) in categories and not invisible.match(chr(code))
    ]
    assert missed == []


NAME_ALPHABET = st.sampled_from(list("ab. /\\\t\u202e\u200b\xa0\u3000é")) | st.characters(
    exclude_categories=("Cs",)
)


@given(st.text(NAME_ALPHABET, max_size=12))
@example("0\n")  # a final newline: refused by the rule and by an ECMA `$`
def test_the_documented_pattern_is_exactly_the_name_rule(raw: str) -> None:
    """`NAME_PATTERN` (in the OpenAPI document) accepts what `validate_name` accepts."""
    try:
        validate_name(raw, 255)
        accepted = True
    except InvalidInputError:
        accepted = False
    # JSON Schema patterns are ECMA-262: `$` is the end of input. Python's `$` also matches
    # before a final newline ("0\n"), so the pattern is read here with `\Z` for `$`.
    ecma_pattern = NAME_PATTERN.replace("$", r"\Z")
    assert bool(re.search(ecma_pattern, raw)) == accepted, repr(raw)
