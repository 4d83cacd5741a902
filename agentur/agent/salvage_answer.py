"""What is left of a reply that was still no answer after its correction.

A small model that ignores a correction often still wrote the answer, between copied context,
tool advice and markup. The lines that made the reply no answer are removed; what is left is
taken when it is an answer and some name or figure in it came from what this run found (its
tool results, or the knowledge passages agentur gave it) — what the model copied from hints of
other workflows alone is not taken.
"""

from __future__ import annotations

import re
from collections.abc import Collection

from agentur.agent.answer_problems import (
    CONTEXT_LINE,
    CONTEXT_TITLES,
    CORRECTION_PHRASES,
    HEADING,
    JSON_CALL,
    MARKUP,
    PASSAGE_HEADER,
    TOOL_ADVICE,
    answer_problem,
)

HINTS_TITLE = "hints from other workflows"

_BLOCKS = re.compile(
    r"<(?P<tag>tool_call|tool_response|tools|function)\b[^>]*>.*?(?:</(?P=tag)>|$)",
    re.DOTALL | re.IGNORECASE,
)
_EMPTY_FENCE = re.compile(r"```[a-zA-Z]*\s*```")
MIN_SALVAGED_WORDS = 4
MIN_COPIED_CHARS = 12


# Names and figures: what an answer's facts are made of (a word at a sentence's start does not
# count as a name).
_FACT = re.compile(r"(?<![.!?:\n]\s)(?<!^)\b(?:\d[\d'’.,]*\d|\d|[A-ZÄÖÜÀ-Þ][\w-]{2,})\b")


def _grounded(text: str, request: str, found: str) -> bool:
    """Some name or figure of `text` that the request does not hold came from a tool result."""
    asked, seen = request.lower(), found.lower()
    return any(
        (fact := match.group(0).lower()) not in asked and fact in seen
        for match in _FACT.finditer(text)
    )


def salvaged_answer(text: str, request: str, tools: Collection[str], found: str) -> str | None:
    """`text` without the lines that made it no answer (agentur's context, tool-protocol markup
    and blocks, advice to call a tool, the request repeated, lines copied from tool results or
    passages), when what is left is an answer with a name or figure from what the run found
    (`found`: its tool results and knowledge passages); else None."""
    asked = " ".join(request.split()).lower()
    seen = " ".join(found.split()).lower()
    kept = []
    for line in _BLOCKS.sub("", text).splitlines():
        # "- [notes.txt (file_id …)] Mara Keller leads it": the model's words after a header
        line = PASSAGE_HEADER.sub("- ", line)
        heading = HEADING.match(line)
        words = " ".join(line.strip(" -*`").split()).lower()
        if (
            (len(words) >= MIN_COPIED_CHARS and words in seen)  # a line copied from what it got
            or CONTEXT_LINE.search(line)
            or any(phrase in line for phrase in CORRECTION_PHRASES)
            or MARKUP.search(line)
            or JSON_CALL.search(line)
            or (heading and heading.group("title").strip(" :").lower() in CONTEXT_TITLES)
            or any(a.group("name") in tools for a in TOOL_ADVICE.finditer(line))
            or (asked and " ".join(line.split()).lower() == asked)
            or line.strip() == "-"
        ):
            continue
        kept.append(line.rstrip())
    cleaned = re.sub(r"\n{3,}", "\n\n", _EMPTY_FENCE.sub("", "\n".join(kept))).strip()
    if len(cleaned.split()) < MIN_SALVAGED_WORDS or answer_problem(cleaned, request, tools):
        return None
    return cleaned if _grounded(cleaned, request, found) else None


def without_hints(knowledge: str) -> str:
    """The knowledge block without its hints from other workflows (not what this run found)."""
    kept, skipping = [], False
    for line in knowledge.splitlines():
        if (heading := HEADING.match(line)) is not None:
            skipping = heading.group("title").strip(" :").lower() == HINTS_TITLE
        if not skipping:
            kept.append(line)
    return "\n".join(kept)
