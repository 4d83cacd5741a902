"""Offline language detection per visitor message (lingua, restricted to our five languages).

Restricting lingua to the languages we answer in keeps it light (its models load per
language) and makes short messages more reliable. Very short or ambiguous text falls back to
the assistant's first language, so a "ok" never flips the conversation's language.
"""

from __future__ import annotations

from functools import lru_cache

from lingua import IsoCode639_1, Language, LanguageDetector, LanguageDetectorBuilder

from agentur.assistant.definition import LANGUAGES

MIN_CONFIDENCE = 0.5


@lru_cache(maxsize=1)
def _detector() -> LanguageDetector:
    languages = [
        Language.from_iso_code_639_1(getattr(IsoCode639_1, code.upper())) for code in LANGUAGES
    ]
    return LanguageDetectorBuilder.from_languages(*languages).build()


def detect_language(text: str, allowed: list[str], fallback: str) -> str:
    """The message's language if it is one the assistant speaks and lingua is confident."""
    if len(text.strip()) < 4:
        return fallback
    values = _detector().compute_language_confidence_values(text)
    for value in values:
        code = value.language.iso_code_639_1.name.lower()
        if code in allowed and value.value >= MIN_CONFIDENCE:
            return code
    return fallback
