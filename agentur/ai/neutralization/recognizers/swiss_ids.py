"""Swiss identifiers: AHV/AVS social security numbers and company UIDs (checksummed)."""

from __future__ import annotations

import re
from collections.abc import Iterator

from stdnum.ch import ssn, uid

from agentur.ai.neutralization.recognizers.base import Recognizer, Span

_AHV = re.compile(r"(?<![\w.])756[.\s]?\d{4}[.\s]?\d{4}[.\s]?\d{2}(?![\w])")
_UID = re.compile(r"\bCHE[-\s]?\d{3}[.\s]?\d{3}[.\s]?\d{3}(?:\s?(?:MWST|TVA|IVA|HR))?\b")


def find_ahv_numbers(text: str) -> Iterator[Span]:
    for match in _AHV.finditer(text):
        if ssn.is_valid(match.group()):
            yield Span(match.start(), match.end(), ssn.compact(match.group()))


def find_uids(text: str) -> Iterator[Span]:
    if "CHE" not in text:
        return
    for match in _UID.finditer(text):
        number = re.sub(r"\s?(MWST|TVA|IVA|HR)$", "", match.group())
        if uid.is_valid(number):
            yield Span(match.start(), match.end(), uid.compact(number))


AHV = Recognizer("AHV", find_ahv_numbers, priority=85)
UID = Recognizer("UID", find_uids, priority=85)
