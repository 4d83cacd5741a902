"""A FAQ answer: the stored answer verbatim, the FAQ as its source (S2: no model involved)."""

from __future__ import annotations

from agentur.assistant.definition import Faq
from agentur.assistant.events import TurnEvent, chunk, sources


def faq_source(faq: Faq) -> dict[str, object]:
    source: dict[str, object] = {"kind": "faq", "faq_id": faq.id, "question": faq.question}
    if faq.url:
        source["url"] = faq.url  # the widget shows the source as a link
    return source


def answer_faq(faq: Faq) -> tuple[list[TurnEvent], str]:
    return [chunk(faq.answer), sources([faq_source(faq)])], faq.answer
