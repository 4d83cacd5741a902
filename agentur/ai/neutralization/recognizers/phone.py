"""Phone numbers: international (+/00) anywhere, national formats of CH and its neighbours.

A cheap regex finds digit runs first; only those go to `phonenumbers`, which validates the
number plan of each region in turn. Dates and short numbers fail validation."""

from __future__ import annotations

import re
from collections.abc import Iterator
from functools import lru_cache

import phonenumbers

from agentur.ai.neutralization.recognizers.base import Recognizer, Span

REGIONS = ("CH", "DE", "AT", "FR", "IT", "LI")
_CANDIDATE = re.compile(r"(?<![\w+])(?:\+|\(\+?)?\d(?:[ \t\-./()]{0,2}\d){5,17}(?!\w)")


@lru_cache(maxsize=4096)
def _numbers_in(chunk: str) -> tuple[tuple[int, int, str], ...]:
    """(start, end, E.164) of the valid numbers in one candidate. Cached: the agent re-sends
    its whole history every round, so the same candidates come back again and again."""
    international = chunk.lstrip("(").startswith(("+", "00"))
    # An international number parses the same under every region: one attempt is enough.
    for region in REGIONS[:1] if international else REGIONS:
        matches = list(phonenumbers.PhoneNumberMatcher(chunk, region, phonenumbers.Leniency.VALID))
        if matches:
            return tuple(
                (
                    match.start,
                    match.start + len(match.raw_string),
                    phonenumbers.format_number(match.number, phonenumbers.PhoneNumberFormat.E164),
                )
                for match in matches
            )
    return ()


def find_phone_numbers(text: str) -> Iterator[Span]:
    for candidate in _CANDIDATE.finditer(text):
        for start, end, key in _numbers_in(candidate.group()):
            yield Span(candidate.start() + start, candidate.start() + end, key)


PHONE = Recognizer("PHONE", find_phone_numbers, priority=40)
