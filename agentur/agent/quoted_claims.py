"""Quotes in an answer that nothing the run read contains.

A model that found nothing may still "quote" a document (seen from a 1.5B model asked for a
phone number its files do not hold: `From the [hours.md] document: "Phone: +41 23 456 7890"`).
A quoted span — in "…", “…”, „…“ or «…», with a figure or at least three words — must appear in
what the run read (its tool results and knowledge passages) or in the request; code (in
backticks) is not checked.
"""

from __future__ import annotations

import re

# A quote opens prose: not an attribute's value (`onerror="…"`) or a word's apostrophe.
_QUOTED = re.compile(
    r'(?<![=\w])(?:"([^"\n]{6,300})"|“([^”\n]{6,300})”|„([^“”\n]{6,300})[“”]|«([^»\n]{6,300})»)'
)
_CODE = re.compile(r"```.*?```|`[^`\n]*`", re.DOTALL)
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
