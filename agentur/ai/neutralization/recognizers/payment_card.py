"""Payment card numbers: 13–19 digits (spaces or dashes allowed) passing the Luhn check."""

from __future__ import annotations

import re
from collections.abc import Iterator

from stdnum import luhn

from agentur.ai.neutralization.recognizers.base import Recognizer, Span

# Not part of a longer number or decimal ("…1111." at a sentence end is fine).
_CANDIDATE = re.compile(r"(?<!\w)(?<!\d[.,])[2-6](?:[ -]?\d){12,18}(?!\w)(?![.,]\d)")


def find_payment_cards(text: str) -> Iterator[Span]:
    for match in _CANDIDATE.finditer(text):
        digits = re.sub(r"\D", "", match.group())
        if 13 <= len(digits) <= 19 and luhn.is_valid(digits):
            yield Span(match.start(), match.end(), digits)


CARD = Recognizer("CARD", find_payment_cards, priority=60)
