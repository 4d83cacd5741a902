"""The router and the classification model together: a sure router match needs no model (and
no model can misroute it); below it the model sees the closest candidates with their variants
and answers, and its `target` counts; the sourceless small-talk override trusts no similarity
match below the direct threshold."""

from __future__ import annotations

from typing import Any

import numpy as np

from agentur.ai.providers.local_embedding import LocalEmbeddingProvider
from agentur.ai.providers.scripted import ScriptedProvider
from agentur.ai.service import AiService
from agentur.ai.settings import AiSettings
from agentur.assistant.definition import AssistantDefinition
from agentur.assistant.intent_head import fit
from agentur.assistant.settings import AssistantSettings
from tests.assistant.test_embedding_router import PRAXIS as PRAXIS_FAQS
from tests.assistant.test_grounded_answers import CHEESE_ANSWER, cheese_shop
from tests.assistant.turns import intent, turn


def with_on_device_router(*turns: Any) -> tuple[AiService, ScriptedProvider]:
    """A chat model that answers as scripted beside the real on-device embedding model, which
    the router uses by default (AGENTUR_ASSISTANT_ROUTER_EMBEDDING_MODEL=local)."""
    chat = ScriptedProvider(list(turns), fallback=None)
    return AiService([LocalEmbeddingProvider(), chat], settings=AiSettings()), chat


async def test_a_sure_faq_is_answered_without_a_model_call_and_survives_a_misrouting_model():
    message = "If the cheese arrives damaged, can I get my money back?"
    ai, chat = with_on_device_router(intent("search_knowledge", confidence=0.99))
    result = await turn(message, ai=ai, definition=cheese_shop())
    assert "classify:router:similarity:direct" in result.path
    assert result.path[-1] == "faq:damaged"
    assert result.final["answer"] == CHEESE_ANSWER
    assert chat.received == []  # the misrouting model was never asked
    # With the direct route off, the same model is asked and its misroute is followed.
    off = AssistantSettings(assistant_router_direct_rate=0.0)
    ai, chat = with_on_device_router(intent("search_knowledge", confidence=0.99))
    result = await turn(message, ai=ai, definition=cheese_shop(), settings=off)
    assert len(chat.received) >= 1 and result.path[-1].startswith("search_knowledge")
    await ai.aclose()


async def test_a_sure_request_for_a_person_goes_to_the_help_desks_whatever_the_model_says():
    # Qwen2.5-Coder-0.5B called "I want to talk to a person." small talk; that became a
    # document search and "I don't know".
    ai, chat = with_on_device_router(intent("basic_reply", confidence=0.99))
    result = await turn("I want to talk to a person.", ai=ai, definition=cheese_shop())
    assert "classify:router:similarity:direct" in result.path, result.path
    assert result.path[-1].startswith("escalat"), result.path
    assert chat.received == []
    await ai.aclose()


async def test_a_question_about_a_document_fact_is_left_to_the_model():
    ai, chat = with_on_device_router(intent("search_knowledge"))
    result = await turn("When are you open on Saturday?", ai=ai, definition=cheese_shop())
    assert "classify:model" in result.path
    assert len(chat.received) >= 1
    await ai.aclose()


async def test_the_prompt_shows_candidates_with_variants_and_answers_and_the_target_counts():
    # The model says "search_knowledge" but names the right FAQ: the FAQ is answered.
    ai, chat = with_on_device_router(intent("search_knowledge", "damaged", 0.6))
    off = AssistantSettings(assistant_router_direct_rate=0.0)  # make sure the model is asked
    result = await turn(
        "My cheese came squashed, what now?", ai=ai, definition=cheese_shop(), settings=off
    )
    assert result.path[1:] == ["classify:model", "faq:damaged"]
    assert result.final["answer"] == CHEESE_ANSWER
    system = chat.received[0].messages[0].content
    assert '"faq": "damaged"' in system and '"faq": "returns"' in system
    assert "The cheese was broken when it arrived" in system  # a variant
    assert "send us a photo" in system  # the start of the answer
    assert '"flow": "order_status"' in system and "track my parcel" in system


async def test_an_unknown_target_lets_the_router_decide():
    ai, _ = with_on_device_router(intent("faq", "no-such-faq"))
    off = AssistantSettings(assistant_router_direct_rate=0.0)
    result = await turn("Do you ship to Mars?", ai=ai, definition=cheese_shop(), settings=off)
    assert result.path[1].startswith("classify:router:")
    assert not result.path[-1].startswith("faq:")
    await ai.aclose()


# The German practice of the router tests (a question and four variants per FAQ).
PRAXIS = {
    "name": "Praxis",
    "instructions": "Du hilfst Patientinnen und Patienten einer Physiotherapie-Praxis.",
    "languages": ["de"],
    "faqs": [
        {
            "id": candidate.target,
            "question": candidate.examples[0],
            "variants": list(candidate.examples[1:]),
            "answer": f"Antwort zu {candidate.target}.",
        }
        for candidate in PRAXIS_FAQS
    ],
}


async def test_small_talk_override_takes_no_similarity_match_below_the_direct_threshold():
    # A question about a document fact: the similarity leg matches "parkieren" above the
    # router threshold (a false match) but below the direct one. A model calling it small
    # talk gets a knowledge search, not that FAQ.
    definition = AssistantDefinition.model_validate(PRAXIS)
    ai, _ = with_on_device_router(intent("basic_reply"))
    result = await turn("Wer ist der Arzt in der Praxis?", ai=ai, definition=definition)
    assert result.path[1] == "classify:model-overridden:router:similarity"
    assert result.path[-1].startswith("search_knowledge")
    await ai.aclose()
    # A right but unsure similarity match does not count either; a keyword the author
    # configured for the FAQ does.
    message = "Übernimmt die Grundversicherung die Kosten?"
    for keywords, last in (([], "search_knowledge"), (["grundversicherung"], "faq:kosten")):
        faqs = [
            {**faq, "keywords": keywords if faq["id"] == "kosten" else []} for faq in PRAXIS["faqs"]
        ]
        definition = AssistantDefinition.model_validate(PRAXIS | {"faqs": faqs})
        ai, _ = with_on_device_router(intent("basic_reply"))
        result = await turn(message, ai=ai, definition=definition)
        assert result.path[-1].startswith(last), (keywords, result.path)
        await ai.aclose()


def test_calibration_answers_the_target_share_of_messages_of_held_out_intents():
    """Synthetic intents (clusters of vectors): 40 are FAQs with 6 examples each, 20 are
    never seen; the share of fresh messages of the unseen ones answered lands within 0.05
    of the configured rate, for several rates."""
    rng = np.random.default_rng(11)
    centres = rng.normal(0, 1, (60, 24))

    def messages(intents: np.ndarray, per: int) -> np.ndarray:
        rows = np.repeat(centres[intents], per, axis=0)
        rows = rows + rng.normal(0, 0.9, rows.shape)
        return rows / np.linalg.norm(rows, axis=1, keepdims=True)

    known, unseen = np.arange(40), np.arange(40, 60)
    examples = messages(known, 6)
    labels = np.repeat(known, 6)
    texts = ["same words"] * len(labels)  # the lexical head cannot tell them apart
    outside = messages(unseen, 30)
    for rate in (0.1, 0.2, 0.3):
        fitted = fit(examples, texts, labels, 40, None, rate, 0.02)
        answered = fitted.sure(outside, texts[:1] * len(outside)) >= fitted.threshold
        assert abs(answered.mean() - rate) <= 0.05, (rate, answered.mean())
