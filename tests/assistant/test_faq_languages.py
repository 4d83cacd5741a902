"""FAQ answers in the visitor's language: a FAQ may carry texts per language; a visitor whose
language it lacks gets its own text after a sentence, in the visitor's language, saying which
language that is. Definitions stored before translations existed load unchanged."""

from __future__ import annotations

import httpx
import pytest

from agentur.assistant.definition import AssistantDefinition
from agentur.assistant.phrases import PHRASES
from tests.assistant.definitions import RETURNS_ANSWER, shop_definition
from tests.assistant.turns import turn
from tests.conftest import Tenants

RUECKGABE = "Sie können jeden Artikel innert 30 Tagen zurücksenden."


def _translated(**faq_fields: object) -> AssistantDefinition:
    data = shop_definition(languages=["en", "de", "fr"])
    data["faqs"][0]["translations"] = {
        "de": {"question": "Wie kann ich einen Artikel zurückgeben?", "answer": RUECKGABE}
    }
    data["faqs"][0].update(faq_fields)
    return AssistantDefinition.model_validate(data)


async def test_the_visitor_gets_the_faq_in_their_language() -> None:
    result = await turn("Wie kann ich das zurücksenden?", ai=None, definition=_translated())
    assert result.path[-1] == "faq:returns"
    assert result.final["language"] == "de"
    assert result.final["answer"] == RUECKGABE
    [source] = result.final["sources"]
    assert source["question"] == "Wie kann ich einen Artikel zurückgeben?"
    assert source["language"] == "de"
    english = await turn("How can I return an item?", ai=None, definition=_translated())
    assert english.final["answer"] == RETURNS_ANSWER


async def test_a_missing_language_falls_back_visibly() -> None:
    result = await turn(
        "Comment puis-je renvoyer un article acheté chez vous ?",
        ai=None,
        definition=_translated(keywords=["renvoyer"]),
    )
    assert result.path[-1] == "faq:returns"
    assert result.final["language"] == "fr"
    assert result.final["answer"] == (f"Cette réponse n'existe qu'en anglais :\n\n{RETURNS_ANSWER}")
    assert result.final["sources"][0]["language"] == "en"


async def test_a_faq_written_in_another_language_than_the_first() -> None:
    # The FAQ's own text is German; an English translation exists.
    definition = _translated(
        language="de",
        question="Wie kann ich einen Artikel zurückgeben?",
        answer=RUECKGABE,
        translations={"en": {"answer": RETURNS_ANSWER}},
    )
    english = await turn("How can I return an item?", ai=None, definition=definition)
    assert english.final["answer"] == RETURNS_ANSWER
    # no English question given: the FAQ's own names the source
    assert english.final["sources"][0]["question"] == "Wie kann ich einen Artikel zurückgeben?"


def test_every_language_has_the_fallback_sentence() -> None:
    assert set(PHRASES["faq_other_language"]) == {"en", "de", "fr", "it", "es"}


@pytest.mark.parametrize(
    ("translations", "error"),
    [
        ({"en": {"answer": "Twice"}}, "its own language"),
        ({"rm": {"answer": "Allegra"}}, "translations.rm"),
        ({"de": {"answer": ""}}, "translations.de.answer"),
        ({"de": {"question": "Frage?"}}, "translations.de.answer"),
    ],
)
async def test_translations_are_validated(
    client: httpx.AsyncClient, tenants: Tenants, translations: object, error: str
) -> None:
    admin = await tenants.member()
    data = shop_definition()
    data["faqs"][0]["translations"] = translations
    refused = await client.post("/v1/assistants", json=data, headers=admin.headers)
    assert refused.status_code == 422, refused.text
    assert error in refused.json()["detail"]


async def test_a_definition_stored_without_translations_still_answers(
    client: httpx.AsyncClient, tenants: Tenants
) -> None:
    admin = await tenants.member()
    created = await client.post("/v1/assistants", json=shop_definition(), headers=admin.headers)
    assert created.status_code == 201, created.text
    faq = created.json()["faqs"][0]
    assert (faq["language"], faq["translations"]) == (None, {})
    # the same definition again, as a client that never heard of translations sends it
    assistant_id = created.json()["id"]
    replaced = await client.put(
        f"/v1/assistants/{assistant_id}", json=shop_definition(), headers=admin.headers
    )
    assert replaced.status_code == 200, replaced.text
