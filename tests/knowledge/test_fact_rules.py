"""The model-free workflow facts: entities by simple rules, normalized so the same thing gets
the same key, and the question with a short answer."""

from __future__ import annotations

import json
from dataclasses import dataclass, field

import pytest

from agentur.knowledge.extract_workflow_facts import parse_extraction, transcript
from agentur.knowledge.fact_rules import entities, facts_by_rules, shorten


@dataclass
class Result:
    tool_name: str
    result_preview: str
    is_error: bool = False
    arguments: dict = field(default_factory=dict)


@dataclass
class Run:
    prompt: str
    final_text: str
    tool_results: list[Result] = field(default_factory=list)
    file_refs: list[str] = field(default_factory=list)
    workflow_id: str = "wf"
    run_id: str = "run"


def keys(text: str) -> list[str]:
    return [fact.key for fact in entities(text, "answer")]


def test_entities_are_normalized_to_one_key_per_thing() -> None:
    text = (
        "Pay CHF 1'250.50 or Fr. 80.– or 99 € or EUR 12,5 or 45 Franken to Billing@Zoo-Basel.CH "
        "by 31.03.2026, 2026-04-01, 3. März 2026, 12 avril 2026 or March 5, 2026."
    )
    assert keys(text) == [
        "e-mail billing@zoo-basel.ch",
        "amount CHF 1250.50",
        "amount CHF 80",
        "amount EUR 99",
        "amount EUR 12,5",
        "amount CHF 45",
        "date 2026-03-31",
        "date 2026-04-01",
        "date 2026-03-03",
        "date 2026-04-12",
        "date 2026-03-05",
    ]


def test_no_entities_in_look_alikes() -> None:
    assert keys("Version 1.2.3 of 2026, room 12.5, 30.02.2026, 2026-13-01, a@b, 1500 items") == []


def test_each_entity_says_where_it_was_seen() -> None:
    [fact] = entities("x" * 200 + " the deposit of CHF 300 is due " + "y" * 200, "result of f")
    assert fact.kind == "entity"
    assert fact.value.startswith("…") and fact.value.endswith("… (result of f)")
    assert "the deposit of CHF 300 is due" in fact.value and len(fact.value) < 160


def test_facts_come_from_successful_tool_results_never_from_the_answer() -> None:
    run = Run(
        prompt="When is the vet coming on 2026-05-02?",
        final_text="The vet (vet@zoo.ch) comes on 2 May 2026; summary.txt was created.",
        tool_results=[
            Result("read_file", "Invoice CHF 40", arguments={"file_id": "f1"}),
            Result("write_file", "error: CHF 99 failed", is_error=True),
        ],
    )
    facts = facts_by_rules(run)
    assert [(f.kind, f.key, f.value) for f in facts] == [
        ("fact", "read_file file_id=f1", "Invoice CHF 40"),
        ("entity", "amount CHF 40", "Invoice CHF 40 (result of read_file)"),
    ]


def test_shorten_cuts_at_a_sentence_or_a_word() -> None:
    assert shorten("One two.  Three\nfour.", 100) == "One two. Three four."
    assert shorten("First sentence here. Second one is long.", 30) == "First sentence here."
    assert shorten("alpha beta gamma delta", 13) == "alpha beta …"


def test_the_extraction_call_sees_the_question_and_successful_results_only() -> None:
    run = Run("Q?", "A.", [Result("read_file", "data"), Result("write_file", "no", is_error=True)])
    assert transcript(run) == "Question: Q?\n\nResult of read_file: data"
    reply = (
        '```json\n{"facts": [{"kind": "entity", "key": " vet  name ", "value": "Dr. Stripe"}]}```'
    )
    [fact] = parse_extraction(reply)
    assert (fact.kind, fact.key, fact.value) == ("entity", "vet name", "Dr. Stripe")
    long_key = {"kind": "fact", "key": "k" * 300, "value": "v"}
    empty = {"kind": "fact", "key": "empty", "value": "  "}
    [cut] = parse_extraction(json.dumps({"facts": [long_key, empty]}))
    assert cut.key == "k" * 200
    with pytest.raises(ValueError):
        parse_extraction("no json")
    with pytest.raises(ValueError):
        parse_extraction('{"facts": [{"kind": "guess", "key": "k", "value": "v"}]}')
