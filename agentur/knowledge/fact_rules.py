"""Workflow facts without a model: the question with a summary of its answer, and entities that
simple rules find reliably — e-mail addresses, amounts with a currency, calendar dates (numeric
or with a month name in de/fr/it/en). Each entity keeps a short snippet of where it was seen, so
a later run knows what the date or amount was about.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import date
from typing import Literal

from agentur.knowledge.run_records import RunFacts

MAX_KEY = 200
QUESTION_CHARS = 180
ANSWER_CHARS = 600
SNIPPET_RADIUS = 60
MAX_SOURCE_CHARS = 20_000  # of one text the rules read

Kind = Literal["fact", "entity"]


@dataclass(frozen=True, slots=True)
class Fact:
    kind: Kind
    key: str
    value: str


MONTHS = {
    name: number
    for number, names in enumerate(
        (
            "januar january janvier gennaio jan",
            "februar february février fevrier febbraio feb fév",
            "märz maerz march mars marzo mar mär",
            "april avril aprile apr avr",
            "mai may maggio",
            "juni june juin giugno jun",
            "juli july juillet luglio jul juil",
            "august august août aout agosto aug",
            "september septembre settembre sep sept",
            "oktober october octobre ottobre oct okt",
            "november novembre nov",
            "dezember december décembre decembre dicembre dec dez déc",
        ),
        start=1,
    )
    for name in names.split()
}
_MONTH = "|".join(sorted((re.escape(name) for name in MONTHS), key=len, reverse=True))

EMAIL = re.compile(r"(?<![\w.+-])[\w.+-]+@[\w-]+(?:\.[\w-]+)*\.[A-Za-z]{2,}\b")
# A number starts only where a run of digits starts: tried from every digit instead, a long
# run costs quadratic backtracking.
_NUMBER = r"(?<![\d’'])(?:\d{1,3}(?:[’'  ,.]\d{3})+|\d+)(?:[.,]\d{1,2}|\.[-–])?"
_CURRENCY = r"CHF|EUR|USD|GBP|SFr\.|Fr\.|€|\$|£"
_CURRENCY_WORD = r"Franken|francs|franchi|Euro"
AMOUNT = re.compile(
    rf"(?P<c1>{_CURRENCY})\s?(?P<n1>{_NUMBER})"
    rf"|(?P<n2>{_NUMBER})\s?(?P<c2>{_CURRENCY}|{_CURRENCY_WORD})(?!\w)"
)
ISO_DATE = re.compile(r"\b(?P<y>\d{4})-(?P<m>\d{2})-(?P<d>\d{2})\b")
NUMERIC_DATE = re.compile(r"\b(?P<d>\d{1,2})[./](?P<m>\d{1,2})[./](?P<y>\d{4})\b")
NAMED_DATE = re.compile(
    rf"\b(?:(?P<d>\d{{1,2}})(?:\.|er|st|nd|rd|th)?\s+(?P<m>{_MONTH})\.?|(?P<m2>{_MONTH})\.?\s+"
    rf"(?P<d2>\d{{1,2}})(?:st|nd|rd|th)?,?)\s+(?P<y>\d{{4}})\b",
    re.IGNORECASE,
)


def _call_key(arguments: object) -> str:
    """A short, stable label of a call's arguments (names and ids, not contents)."""
    if not isinstance(arguments, dict):
        return ""
    shown = [
        f"{key}={value}"
        for key, value in arguments.items()
        if isinstance(value, str) and len(value) <= 80 and key != "content"
    ]
    return " ".join(shown)[:QUESTION_CHARS]


def one_line(text: str) -> str:
    return " ".join(text.split())


def shorten(text: str, limit: int) -> str:
    """`text` on one line, cut after the last sentence that fits (or at a word) with '…'."""
    text = one_line(text)
    if len(text) <= limit:
        return text
    cut = text[:limit]
    end = max(cut.rfind(". "), cut.rfind("! "), cut.rfind("? "))
    if end >= limit // 3:
        return cut[: end + 1]
    return cut.rsplit(" ", 1)[0] + " …"


def _iso(year: str, month: int, day: str) -> str | None:
    try:
        return date(int(year), month, int(day)).isoformat()
    except ValueError:
        return None  # 31.02.2024 and the like are not dates


def _dates(text: str) -> list[tuple[re.Match[str], str]]:
    found: list[tuple[re.Match[str], str]] = []
    for match in (*ISO_DATE.finditer(text), *NUMERIC_DATE.finditer(text)):
        if (value := _iso(match["y"], int(match["m"]), match["d"])) is not None:
            found.append((match, value))
    for match in NAMED_DATE.finditer(text):
        month = MONTHS[(match["m"] or match["m2"]).lower()]
        if (value := _iso(match["y"], month, match["d"] or match["d2"])) is not None:
            found.append((match, value))
    return sorted(found, key=lambda pair: pair[0].start())


def _amounts(text: str) -> Iterator[tuple[re.Match[str], str]]:
    for match in AMOUNT.finditer(text):
        currency = (match["c1"] or match["c2"]).rstrip(".")
        currency = {"Fr": "CHF", "SFr": "CHF", "Franken": "CHF", "francs": "CHF"}.get(
            currency, currency
        )
        currency = {"€": "EUR", "Euro": "EUR", "$": "USD", "£": "GBP", "franchi": "CHF"}.get(
            currency, currency
        )
        number = re.sub(r"[’'  ]", "", match["n1"] or match["n2"]).rstrip(".-–")
        yield match, f"{currency} {number}"


def _snippet(text: str, match: re.Match[str]) -> str:
    start, end = max(0, match.start() - SNIPPET_RADIUS), match.end() + SNIPPET_RADIUS
    return ("…" if start else "") + one_line(text[start:end]) + ("…" if end < len(text) else "")


def entities(text: str, source: str) -> Iterator[Fact]:
    """E-mail addresses, amounts and dates in `text`, each with where it was seen."""
    text = text[:MAX_SOURCE_CHARS]
    finders = (
        ("e-mail", ((m, m.group(0).lower()) for m in EMAIL.finditer(text))),
        ("amount", _amounts(text)),
        ("date", _dates(text)),
    )
    for label, found in finders:
        for match, value in found:
            yield Fact(
                "entity", f"{label} {value}"[:MAX_KEY], f"{_snippet(text, match)} ({source})"
            )


def facts_by_rules(record: RunFacts) -> list[Fact]:
    """What happened, from successful tool results only: each successful call (a file written,
    a message sent) and the entities its result holds. Never the model's answer or claims —
    an answer may say "summary.txt was created" when nothing was written."""
    found = [
        Fact(
            "fact",
            f"{result.tool_name} {_call_key(result.arguments)}".strip()[:MAX_KEY],
            shorten(result.result_preview, ANSWER_CHARS) or "(done)",
        )
        for result in record.tool_results
        if not result.is_error
    ]
    sources = [
        (result.result_preview, f"result of {result.tool_name}")
        for result in record.tool_results
        if not result.is_error
    ]
    for text, source in sources:
        found.extend(entities(text, source))
    return found
