"""Sources from what the answer cites: the model is asked to mark each statement
with its passage's number ([1], [2][3], [1, 3]); `sources` lists only those passages, in the
order the answer first uses them, under the number the answer shows."""

from __future__ import annotations

import re
from typing import Any

from agentur.assistant.knowledge_port import Passage

MARKER = re.compile(r"\[(\d{1,3}(?:\s*[,;]\s*\d{1,3})*)\]")


def cited_numbers(text: str) -> list[int]:
    """Marker numbers in order of first use."""
    seen: dict[int, None] = {}
    for match in MARKER.finditer(text):
        for number in re.split(r"\s*[,;]\s*", match.group(1)):
            seen.setdefault(int(number), None)
    return list(seen)


def has_words(text: str) -> bool:
    """Whether `text` says anything besides citation markers ("[1]" alone is no answer)."""
    return any(character.isalpha() for character in MARKER.sub("", text))


def cited_sources(text: str, passages: list[Passage]) -> list[dict[str, Any]]:
    """`passages` are numbered from 1 as the model saw them; numbers outside are ignored."""
    found: list[dict[str, Any]] = []
    places: set[tuple[str, int, int]] = set()
    for number in cited_numbers(text):
        if not 1 <= number <= len(passages):
            continue
        passage = passages[number - 1]
        place = (passage.source_id, passage.offset, passage.length)
        if place not in places:  # the same text found twice is one source
            places.add(place)
            found.append({"ref": number, **passage.citation()})
    return found
