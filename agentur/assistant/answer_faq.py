"""A FAQ answer: the stored answer verbatim, the FAQ as its source (no model involved).

In the visitor's language when the FAQ has it; otherwise the FAQ's own text, after a sentence
in the visitor's language that says which language the answer is in.
"""

from __future__ import annotations

from agentur.assistant.definition import Faq
from agentur.assistant.events import TurnEvent, chunk, sources
from agentur.assistant.phrases import language_name, phrase


def faq_source(faq: Faq, question: str, language: str) -> dict[str, object]:
    """`language`: the one the answer is in (the widget marks the text with it)."""
    source: dict[str, object] = {
        "kind": "faq",
        "faq_id": faq.id,
        "question": question,
        "language": language,
    }
    if faq.url:
        source["url"] = faq.url  # the widget shows the source as a link
    return source


def answer_faq(faq: Faq, language: str, own_language: str) -> tuple[list[TurnEvent], str]:
    """`language`: the conversation's; `own_language`: the assistant's first, which a FAQ
    without a `language` of its own is written in."""
    question, answer, answer_language = faq.text_in(language, own_language)
    if answer_language != language:
        note = phrase("faq_other_language", language, name=language_name(answer_language, language))
        answer = f"{note}\n\n{answer}"
    return [chunk(answer), sources([faq_source(faq, question, answer_language)])], answer
