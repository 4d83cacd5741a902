"""The answer without any chat model: the best passages quoted with their citations,
labelled as excerpts so nobody mistakes them for a generated answer."""

from __future__ import annotations

from agentur.assistant.events import TurnEvent, action, chunk, sources
from agentur.assistant.knowledge_port import Passage
from agentur.assistant.phrases import phrase

EXCERPT_CHARS = 600


def _excerpt(passage: Passage) -> str:
    text = " ".join(passage.text.split())
    return text if len(text) <= EXCERPT_CHARS else text[:EXCERPT_CHARS].rsplit(" ", 1)[0] + " …"


def where(passage: Passage) -> str:
    parts = [passage.file_name, *passage.heading_path]
    if passage.page is not None:
        parts.append(f"p. {passage.page}")
    return " › ".join(parts)


def quote_passages(
    passages: list[Passage], language: str
) -> tuple[list[TurnEvent], str, list[dict[str, object]]]:
    """The passages quoted with their sources, or "nothing found" and a person offered."""
    if not passages:
        text = phrase("nothing_found", language)
        return [chunk(text), action("offer_escalation")], text, []
    lines = [phrase("extractive_label", language)]
    for number, passage in enumerate(passages, start=1):
        lines.append(f"[{number}] {_excerpt(passage)}\n    — {where(passage)}")
    text = "\n\n".join(lines)
    citations = [{"ref": n, **p.citation()} for n, p in enumerate(passages, start=1)]
    return [chunk(text), sources(citations)], text, citations
