"""The one name rule (agentur/names.py): what the documented patterns accept is exactly what
`clean_name` accepts, and the rule's pieces (pure functions, no database)."""

from __future__ import annotations

import re

import pytest
from hypothesis import example, given
from hypothesis import strategies as st

from agentur.errors import InvalidInputError
from agentur.names import NAME_PATTERN, OPTIONAL_NAME_PATTERN, clean_name, name_from_text

ALPHABET = st.sampled_from(list("ab. /\\\t\u202e\u200b\xa0\u3000é\u2028")) | st.characters(
    exclude_categories=("Cs",)
)


def _accepts(raw: str, required: bool) -> bool:
    try:
        clean_name(raw, max_length=255, required=required)
    except InvalidInputError:
        return False
    return True


@given(st.text(ALPHABET, max_size=12))
@example("0\n")
@example(" ")
@example("\u3000")
def test_the_documented_patterns_are_exactly_the_rule(raw: str) -> None:
    # JSON Schema patterns are ECMA-262: `$` is the end of input (Python's `\\Z`).
    for pattern, required in ((NAME_PATTERN, True), (OPTIONAL_NAME_PATTERN, False)):
        documented = re.search(pattern.replace("$", r"\Z"), raw) is not None
        assert documented == _accepts(raw, required), (repr(raw), required)


@pytest.mark.parametrize(
    ("raw", "expected"),
    [(" Cafe\u0301 ", "Café"), ("Zu\u0308rich\u00a0", "Zürich"), ("日本語 😀", "日本語 😀")],
)
def test_names_are_normalized_and_trimmed(raw: str, expected: str) -> None:
    assert clean_name(raw) == expected


@pytest.mark.parametrize(
    ("raw", "message"),
    [("", "empty"), ("a\x00", "U+0000"), ("a\u202eb", "U+202E"), ("a\u2029", "U+2029")],
)
def test_invalid_names_are_refused_with_the_reason(raw: str, message: str) -> None:
    with pytest.raises(InvalidInputError, match=re.escape(message)):
        clean_name(raw, "display_name")


def test_the_limit_holds_as_sent_and_as_stored() -> None:
    assert clean_name("ü" * 10, max_length=10) == "ü" * 10
    with pytest.raises(InvalidInputError, match="longer than 10"):
        clean_name("u\u0308" * 6, max_length=10)  # 12 characters as sent, 6 stored
    assert clean_name("", required=False) == "" and clean_name("  ", required=False) == ""


def test_a_name_from_free_text_is_always_valid() -> None:
    derived = name_from_text("Summarize\r\nthe \u202ereport\u200b  please", 20)
    assert derived == "Summarize the report" and clean_name(derived) == derived
