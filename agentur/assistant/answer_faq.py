"""A FAQ answer: the stored answer verbatim, the FAQ as its source (S2: no model involved)."""

from __future__ import annotations

from agentur.assistant.definition import Faq
from agentur.assistant.events import TurnEvent, chunk, sources


def faq_source(faq: Faq) -> dict[str, object]:
    return {"kind": "faq", "faq_id": faq.id, "question": faq.question}


def answer_faq(faq: Faq) -> tuple[list[TurnEvent], str]:
    return [chunk(faq.answer), sources([faq_source(faq)])], faq.answer
