"""Offline language detection shared by the assistant and the knowledge store (lingua).

Lingua's confidence values are relative: they sum to one over the languages it was built
with, so an absolute floor says little — "I want to talk to a person." scores English 0.45,
three times any other language, yet under a 0.5 floor it was taken for German. What decides
here is the margin between the best and the second-best language. Short messages ("ok",
"Hallo", "Refund?") are often ambiguous between languages; they need a wider margin and
otherwise keep the language the conversation already has.

Detectors are restricted to the languages a caller can use (which also makes short text more
reliable) and cached per language set. A neutral module on purpose: both the assistant and
the knowledge store import it, neither imports the other.
"""

from __future__ import annotations

from collections.abc import Iterable
from functools import lru_cache

from lingua import IsoCode639_1, Language, LanguageDetector, LanguageDetectorBuilder

MIN_CHARS = 4  # below this nothing is detected ("ok", "?")
SHORT_WORDS = 3  # messages of at most this many words count as short
# Best-to-second confidence ratios that count as a decision (normal and short text).
MIN_RATIO = 2.0
MIN_RATIO_SHORT = 4.0
SAMPLE_CHARS = 4_000  # a document's language shows in its first pages


@lru_cache(maxsize=1)
def _all_languages_detector() -> LanguageDetector:
    # All of lingua's languages in low-accuracy mode: its trigram models take ~80 MB and answer
    # in well under a millisecond once loaded; the high-accuracy models of all take ~1.3 GB.
    return LanguageDetectorBuilder.from_all_languages().with_low_accuracy_mode().build()


def rank_all_languages(text: str, limit: int) -> list[tuple[str, str, float]]:
    """(ISO 639-1 code, English name, confidence) of the `limit` likeliest languages among all
    lingua knows (no Romansh), best first; empty when the text has nothing lingua can judge."""
    values = _all_languages_detector().compute_language_confidence_values(text[:SAMPLE_CHARS])
    return [
        (value.language.iso_code_639_1.name.lower(), value.language.name.title(), value.value)
        for value in values[:limit]
        if value.value > 0
    ]


def clear_language_name(text: str) -> str:
    """The English name of `text`'s language ("German") when lingua's best guess among all
    languages clearly beats the runner-up (the margins of `detect_language`); "" otherwise."""
    if len(text.strip()) < MIN_CHARS:
        return ""
    ranked = rank_all_languages(text, 2)
    if not ranked:
        return ""
    best = ranked[0][2]
    second = ranked[1][2] if len(ranked) > 1 else 0.0
    needed = MIN_RATIO_SHORT if len(text.split()) <= SHORT_WORDS else MIN_RATIO
    return ranked[0][1] if best >= needed * second else ""


@lru_cache(maxsize=16)
def _detector(codes: tuple[str, ...]) -> LanguageDetector:
    languages = [Language.from_iso_code_639_1(getattr(IsoCode639_1, c.upper())) for c in codes]
    return LanguageDetectorBuilder.from_languages(*languages).build()


def language_confidences(text: str, languages: Iterable[str]) -> list[tuple[str, float]]:
    """(code, confidence) for each of `languages`, best first (confidences sum to one)."""
    codes = tuple(sorted(set(languages)))
    if len(codes) < 2:
        return [(code, 1.0) for code in codes]
    values = _detector(codes).compute_language_confidence_values(text[:SAMPLE_CHARS])
    return [(value.language.iso_code_639_1.name.lower(), value.value) for value in values]


def detect_language(text: str, languages: Iterable[str], previous: str) -> str:
    """The language of `text` among `languages` when lingua's best guess clearly beats the
    runner-up; otherwise `previous` (the conversation's language, or a default)."""
    if len(text.strip()) < MIN_CHARS:
        return previous
    ranked = language_confidences(text, languages)
    if not ranked:
        return previous
    best_code, best = ranked[0]
    second = ranked[1][1] if len(ranked) > 1 else 0.0
    short = len(text.split()) <= SHORT_WORDS
    needed = MIN_RATIO_SHORT if short else MIN_RATIO
    return best_code if best > 0 and best >= needed * second else previous
