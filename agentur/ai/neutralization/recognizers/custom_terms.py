"""Per-mandate custom terms (customer names, customer numbers, project code names).

Terms match case-insensitively on word boundaries; the longest term wins."""

from __future__ import annotations

import re
from collections.abc import Iterator, Sequence
from functools import lru_cache

from agentur.ai.neutralization.recognizers.base import Recognizer, Span

TERM_TYPE = "TERM"


@lru_cache(maxsize=256)
def _pattern(terms: tuple[str, ...]) -> re.Pattern[str] | None:
    cleaned = sorted({t.strip() for t in terms if t.strip()}, key=len, reverse=True)
    if not cleaned:
        return None
    alternatives = "|".join(re.escape(term) for term in cleaned)
    return re.compile(rf"(?<!\w)(?:{alternatives})(?!\w)", re.IGNORECASE)


def custom_terms_recognizer(terms: Sequence[str]) -> Recognizer | None:
    pattern = _pattern(tuple(terms))
    if pattern is None:
        return None

    def find_terms(text: str) -> Iterator[Span]:
        for match in pattern.finditer(text):
            yield Span(match.start(), match.end(), match.group().casefold())

    # Highest priority: an admin listed this exact term.
    return Recognizer(TERM_TYPE, find_terms, priority=100)
