"""Dates of birth: a full date (with year) next to a birth cue — geboren, geb., Geburtsdatum,
né/née le, date de naissance, nato/nata il, data di nascita, born, date of birth, DOB.

The date may follow the cue ("geboren am 12.03.1975", "DOB: 1985-06-01") or precede it in the
same clause ("ist am 26. November 1964 geboren"). Numeric (12.03.1975, 1.1.90, 04/05/1962),
ISO (1985-06-01) and written months in de/fr/it/en ("3. März 1980", "1er mars 1975",
"7 giugno 1988", "June 1, 1985"). Other dates (appointments, invoices) stay: they are not
personal. A year alone ("Jahrgang 1975") is not found.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from agentur.ai.neutralization.recognizers.base import Recognizer, Span

MONTHS = (
    r"(?:Januar|Jänner|Februar|März|Maerz|April|Mai|Juni|Juli|August|September|Oktober|November|"
    r"Dezember|janvier|février|mars|avril|juin|juillet|août|septembre|octobre|novembre|décembre|"
    r"gennaio|febbraio|marzo|aprile|maggio|giugno|luglio|agosto|settembre|ottobre|dicembre|"
    r"January|February|March|May|June|July|October|December|"
    r"Jan|Feb|Mär|Apr|Jun|Jul|Aug|Sep|Sept|Okt|Oct|Nov|Dez|Dec)\.?"
)
DATE = re.compile(
    r"(?<![\w.])(?:"
    r"\d{1,2}\s?[./-]\s?\d{1,2}\s?[./-]\s?(?:\d{4}|\d{2})"  # 12.03.1975, 04/05/62
    r"|\d{4}-\d{2}-\d{2}"  # ISO
    rf"|\d{{1,2}}(?:\.|er|st|nd|rd|th)?\s+{MONTHS}\s+\d{{4}}"  # 3. März 1980
    rf"|{MONTHS}\s+\d{{1,2}}(?:st|nd|rd|th)?,?\s+\d{{4}}"  # June 1, 1985
    r")(?![\w]|[./-]\d)",
    re.IGNORECASE,
)
CUE = re.compile(
    r"(?<!\w)(?:geboren|geb\.|Geburtsdatum|Geburtstag|Geb\.-?Datum|"
    r"née?|naissance|nato|nata|nascita|born|birth\s?date|date\s+of\s+birth|birthday|"
    r"D\.?O\.?B\.?)(?!\w)",
    re.IGNORECASE,
)
# Verbs that may come after the date ("ist am 26. November 1964 geboren").
VERBAL = frozenset({"geboren", "né", "née", "nato", "nata", "born"})
# Between a cue and its date: short connecting words only ("geboren am", "né le", "DOB:").
GAP = 30


def _clause_gap(text: str) -> bool:
    """Nothing between cue and date ends the clause (a full stop after a word, a newline)."""
    return len(text) <= GAP and not re.search(r"[\n;!?]|[a-z]{2}\.\s", text)


def find_birth_dates(text: str) -> Iterator[Span]:
    cues = [(cue.start(), cue.end(), cue.group().lower() in VERBAL) for cue in CUE.finditer(text)]
    seen: set[int] = set()
    for cue_start, cue_end, _ in cues:
        # Dates are looked for only near a cue (a date is at most ~20 characters long).
        low, high = max(0, cue_start - GAP - 40), cue_end + GAP + 40
        for date in DATE.finditer(text, low, high):
            if date.start() in seen:
                continue
            if _near_a_cue(text, date, cues):
                seen.add(date.start())
                yield Span(date.start(), date.end())


def _near_a_cue(text: str, date: re.Match[str], cues: list[tuple[int, int, bool]]) -> bool:
    for start, end, verbal in cues:
        after = end <= date.start() and _clause_gap(text[end : date.start()])
        before = verbal and date.end() <= start and _clause_gap(text[date.end() : start])
        if after or before:
            return True
    return False


BIRTHDATE = Recognizer("BIRTHDATE", find_birth_dates, priority=65)
