"""Knowledge answers are checked against their passages before they are sent: a sentence that
cites a passage saying something else, an answer citing nothing, or a definite yes/no no
passage supports is replaced by the quoted passages that bear on the question — or by an
honest "I don't know" with a person offered. Cases seen with a real small model."""

from __future__ import annotations

from agentur.ai.providers.scripted import ScriptedTurn
from agentur.assistant.check_support import check_answer, covers, support
from agentur.assistant.definition import AssistantDefinition
from agentur.assistant.search_knowledge import SYSTEM
from tests.assistant.definitions import shop_definition
from tests.assistant.test_grounded_answers import HOURS, Documents, chunks
from tests.assistant.turns import intent, scripted_ai, turn

WARRANTY = "Auf neue Velos geben wir zwei Jahre Garantie auf den Rahmen und die Gabel."
REPAIR = "Eine Reparatur dauert in der Regel drei Arbeitstage, Ersatzteile vorbehalten."
SHOP = AssistantDefinition.model_validate(shop_definition(languages=["de", "en", "fr", "it"]))


async def answered(message: str, answer: str, *texts: str):
    ai, _ = scripted_ai(intent("search_knowledge"), ScriptedTurn(text=answer))
    return await turn(message, ai=ai, definition=SHOP, knowledge=Documents(*texts))


async def test_a_claim_citing_a_passage_about_something_else_is_not_sent() -> None:
    # The model cited the warranty passage for a repair time copied from a prompt example.
    result = await answered(
        "Wie lange dauert eine Reparatur?",
        "Die Reparatur muss in zwei working days [1] kommen.",
        WARRANTY,
        REPAIR,
    )
    assert result.path[-1] == "search_knowledge:extractive"
    assert "working days" not in chunks(result)
    assert "drei Arbeitstage" in result.final["answer"]
    # Only the passage that covers the question is quoted, not the warranty one.
    assert [s["source_id"] for s in result.final["sources"]] == ["doc-2"]


async def test_right_answers_without_markers_become_the_quoted_passage_with_its_source() -> None:
    for message, answer in (
        ("Quand êtes-vous ouverts le samedi ?", "Le samedi, nous sommes ouverts de 9h00 à 16h00."),
        ("Quando siete aperti il sabato?", "Il sabato siamo aperti dalle 9:00 alle 16:00."),
    ):
        result = await answered(message, answer, WARRANTY, HOURS)
        assert result.path[-1] == "search_knowledge:extractive", message
        assert [s["source_id"] for s in result.final["sources"]] == ["doc-2"], message
        assert "Saturday 9:00 to 16:00" in result.final["answer"]


async def test_an_invented_definite_no_becomes_i_dont_know_with_a_person_offered() -> None:
    for answer in (
        "Nein, es gibt keine Hol- und Bringservice.",
        "Nein, wir bieten keinen Hol- und Bringservice an [1].",
    ):
        result = await answered(
            "Gibt es bei euch einen Hol- und Bringservice?", answer, WARRANTY, REPAIR
        )
        assert result.path[-1] == "search_knowledge:dont_know", answer
        assert result.final["language"] == "de"
        assert result.final["answer"].startswith("Das weiss ich nicht")
        assert "Nein" not in chunks(result)
        assert result.final["actions"] == [{"type": "offer_escalation"}]
        assert result.final["sources"] == []


async def test_an_uncited_yes_beside_a_cited_sentence_is_not_sent() -> None:
    result = await answered(
        "Are you open on Saturday and do you deliver to Mars?",
        "We are open on Saturday from 9:00 to 16:00 [1]. Yes, we also deliver to Mars.",
        HOURS,
    )
    assert result.path[-1] == "search_knowledge:extractive"
    assert "Mars" not in result.final["answer"]


async def test_a_supported_cited_answer_goes_out_unchanged() -> None:
    answer = "Eine Reparatur dauert in der Regel drei Arbeitstage [2]."
    result = await answered("Wie lange dauert eine Reparatur?", answer, WARRANTY, REPAIR)
    assert result.path[-1] == "search_knowledge:generated"
    assert result.final["answer"] == answer
    assert [s["source_id"] for s in result.final["sources"]] == ["doc-2"]


def test_support_needs_the_claims_words_and_every_number() -> None:
    assert support("We are open on Saturday from 9:00 to 16:00", HOURS) == 1.0
    assert support("We are open on Saturday from 9:00 to 17:00", HOURS) == 0.0  # wrong figure
    assert support("Die Reparatur dauert zwei working days", WARRANTY) < 0.6
    assert covers("Wie lange dauert eine Reparatur?", REPAIR)
    assert not covers("Gibt es einen Hol- und Bringservice?", REPAIR)
    verdict = check_answer("Repairs take three days [3].", [WARRANTY, REPAIR])
    assert not verdict.grounded and "does not exist" in verdict.reason


def test_the_prompt_example_is_a_placeholder_no_model_could_take_for_a_fact() -> None:
    assert "working days" not in SYSTEM
    assert "<statement from passage 2> [2]" in SYSTEM


def test_a_marker_after_the_full_stop_belongs_to_its_sentence() -> None:
    # Qwen2.5-Coder-1.5B cited the notes passage for the hours, its marker after the full stop.
    notes = "Project Alpenblick kick-off\nBudget: CHF 48,000\nOwner: Mara Keller"
    answer = "The Lenzburg shop is open on Saturday from 9:00 to 16:00. [2]"
    verdict = check_answer(answer, [HOURS, notes])
    assert not verdict.grounded and "16:00. [2]" in verdict.reason
    assert check_answer(answer.replace("[2]", "[1]"), [HOURS, notes]).grounded
