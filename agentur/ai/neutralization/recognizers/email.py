"""E-mail addresses."""

from __future__ import annotations

import re
from collections.abc import Iterator

from agentur.ai.neutralization.recognizers.base import Recognizer, Span

_EMAIL = re.compile(
    r"(?<![\w.+-])[\w.+-]+@[A-Za-z0-9](?:[A-Za-z0-9-]*[A-Za-z0-9])?(?:\.[A-Za-z0-9-]+)*\.[A-Za-z]{2,}\b"
)


def find_emails(text: str) -> Iterator[Span]:
    if "@" not in text:
        return
    for match in _EMAIL.finditer(text):
        yield Span(match.start(), match.end(), match.group().lower())


EMAIL = Recognizer("EMAIL", find_emails, priority=90)
