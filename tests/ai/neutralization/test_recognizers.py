from __future__ import annotations

import pytest

from agentur.ai.neutralization.neutralizer import Neutralizer
from agentur.ai.neutralization.placeholder_map import PlaceholderMap
from tests.ai.neutralization.pii_corpus import NOT_PII, PII, TEMPLATES, corpus_text

neutralizer = Neutralizer()


@pytest.mark.parametrize(("value", "entity_type"), PII)
@pytest.mark.parametrize("template", TEMPLATES)
def test_every_corpus_value_is_found_and_replaced(value: str, entity_type: str, template: str):
    text = template.format(v=value)
    mapping = PlaceholderMap()
    neutral = neutralizer.neutralize(text, mapping)
    assert value not in neutral
    assert f"[{entity_type}_1]" in neutral
    assert mapping.reidentify(neutral) == text


@pytest.mark.parametrize("text", NOT_PII)
def test_non_personal_numbers_are_left_alone(text: str):
    assert neutralizer.find(text) == []


def test_checksums_reject_near_misses():
    # One digit off: not an IBAN, not a card, not an AHV number.
    assert "IBAN" not in neutralizer.entity_types("CH94 0076 2011 6238 5295 7")
    assert "CARD" not in neutralizer.entity_types("4111 1111 1111 1112")
    assert "AHV" not in neutralizer.entity_types("756.1234.5678.98")


def test_same_value_in_other_format_shares_a_placeholder():
    mapping = PlaceholderMap()
    text = "Tel +41 44 668 18 00, also 044 668 18 00; mail A@Example.ch or a@example.ch"
    neutral = neutralizer.neutralize(text, mapping)
    assert neutral == "Tel [PHONE_1], also [PHONE_1]; mail [EMAIL_1] or [EMAIL_1]"


def test_custom_terms_match_case_insensitively_on_word_boundaries():
    mapping = PlaceholderMap()
    terms = ["Acme Treuhand AG", "K-4711"]
    neutral = neutralizer.neutralize(
        "ACME TREUHAND AG (Kunde K-4711) vs. Acme Treuhand AGX", mapping, terms
    )
    assert neutral == "[TERM_1] (Kunde [TERM_2]) vs. Acme Treuhand AGX"


def test_whole_corpus_leaves_no_value_behind():
    mapping = PlaceholderMap()
    neutral = neutralizer.neutralize(corpus_text(), mapping)
    for value, _ in PII:
        assert value not in neutral
    for text in NOT_PII:
        assert text in neutral
