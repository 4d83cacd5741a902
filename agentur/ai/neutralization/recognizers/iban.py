"""IBANs, validated by their mod-97 checksum (spaces between groups allowed)."""

from __future__ import annotations

import re
from collections.abc import Iterator

from stdnum import iban

from agentur.ai.neutralization.recognizers.base import Recognizer, Span

# Country code, check digits, then groups; trailing groups are dropped until the checksum fits
# (so "… 5295 7 AG" does not swallow the "AG").
_CANDIDATE = re.compile(r"\b[A-Z]{2}\d{2}(?: ?[A-Z0-9]{1,4}){3,8}\b")
_GROUP = re.compile(r" ?[A-Z0-9]{1,4}")


def find_ibans(text: str) -> Iterator[Span]:
    for match in _CANDIDATE.finditer(text):
        groups = [g.end() for g in _GROUP.finditer(match.group(), 4)]
        for end in reversed(groups):
            value = match.group()[:end]
            if iban.is_valid(value):
                yield Span(match.start(), match.start() + end, iban.compact(value))
                break


IBAN = Recognizer("IBAN", find_ibans, priority=80)
