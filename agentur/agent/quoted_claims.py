"""Quotes and long figures in an answer that nothing the run read contains.

A model that found nothing may still "quote" a document (seen from a 1.5B model asked for a
phone number its files do not hold: `From the [hours.md] document: "Phone: +41 23 456 7890"`).
A quoted span — in "…", “…”, „…“ or «…», with a figure or at least three words — must appear in
what the run read (its tool results and knowledge passages) or in the request; code (in
backticks) is not checked.

So must a figure of seven digits or more, quoted or not — a phone, account or order number
(the same model, its search having found nothing: "the phone number is +41 21 37 88 00"). Its
digits are compared, whatever spaces, dots or dashes group them; a date is no such figure.
"""

from __future__ import annotations

import re

# A quote opens prose: not an attribute's value (`onerror="…"`) or a word's apostrophe.
_QUOTED = re.compile(
    r'(?<![=\w])(?:"([^"\n]{6,300})"|“([^”\n]{6,300})”|„([^“”\n]{6,300})[“”]|«([^»\n]{6,300})»)'
)
_CODE = re.compile(r"```.*?```|`[^`\n]*`", re.DOTALL)
# Digits grouped by spaces, dots, dashes, slashes, brackets, apostrophes or thousands' commas;
# not inside a word.
_FIGURE = re.compile(r"(?<![\w+])\+?\d(?:[\d .\-/()'’]|,(?=\d{3}))*\d(?!\w)")
_DATE = re.compile(r"\d{4}-\d{2}-\d{2}|\d{1,2}[./]\d{1,2}[./]\d{2,4}")
FIGURE_DIGITS = 7
_EDGES = " .,;:!?'’"


def _normal(text: str) -> str:
    return " ".join(text.split()).lower()


def unsupported_quote(answer: str, read: str, request: str) -> str | None:
    """The first quoted span of `answer` that neither `read` nor `request` contains."""
    seen, asked = _normal(read), _normal(request)
    for match in _QUOTED.finditer(_CODE.sub(" ", answer)):
        quote = next(group for group in match.groups() if group is not None)
        span = _normal(quote).strip(_EDGES)
        if not (any(c.isdigit() for c in span) or span.count(" ") >= 2):
            continue
        if span not in seen and span not in asked:
            return quote.strip()
    return None


def _digits(text: str) -> list[str]:
    return ["".join(c for c in m.group() if c.isdigit()) for m in _FIGURE.finditer(text)]


def unsupported_figure(answer: str, read: str, request: str) -> str | None:
    """The first figure of `answer` with at least `FIGURE_DIGITS` digits (not a date) whose
    digits are in no figure of `read` or `request`."""
    known = _digits(read) + _digits(request)
    for match in _FIGURE.finditer(_CODE.sub(" ", answer)):
        figure = match.group().strip(" .-/()'’")
        digits = "".join(c for c in figure if c.isdigit())
        if len(digits) < FIGURE_DIGITS or _DATE.fullmatch(figure):
            continue
        if not any(digits in seen for seen in known):
            return figure
    return None


def unsupported_claim(answer: str, read: str, request: str) -> str | None:
    """A quote or a long figure of `answer` that nothing read or asked contains."""
    return unsupported_quote(answer, read, request) or unsupported_figure(answer, read, request)
