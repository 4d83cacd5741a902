"""Lines of a text that hold a query: the whole query, or — when no line does — some of its
words. Models search in the user's language for documents written in another ("Projekt
Alpenblick" in notes that say "Project Alpenblick"), and a query that matches nothing as a whole
still points to the lines that share its rarer words."""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass

MIN_WORD_CHARS = 4
_WORD = re.compile(r"\w+")


@dataclass(frozen=True, slots=True)
class LineMatch:
    number: int  # from 1
    line: str
    words: tuple[str, ...] = ()  # the query's words the line holds; empty: the whole query


def whole_query_lines(text: str, query: str, *, case_sensitive: bool) -> Iterator[LineMatch]:
    needle = query if case_sensitive else query.lower()
    for number, line in enumerate(text.splitlines(), start=1):
        if needle in (line if case_sensitive else line.lower()):
            yield LineMatch(number, line)


def query_words(query: str) -> tuple[str, ...]:
    """The query's words worth matching alone (at least four characters), lower-cased."""
    words = dict.fromkeys(w.lower() for w in _WORD.findall(query) if len(w) >= MIN_WORD_CHARS)
    return tuple(words)


def word_lines(text: str, words: tuple[str, ...]) -> Iterator[LineMatch]:
    """Lines holding at least one of `words` (case-insensitive, as whole words)."""
    for number, line in enumerate(text.splitlines(), start=1):
        held = set(_WORD.findall(line.lower()))
        if found := tuple(word for word in words if word in held):
            yield LineMatch(number, line, found)
