"""Labelled sentences for the recall/precision of the free-text recognizers (person names,
street + number, postcode + locality, birth dates): `bench/pii.py` prints the figures,
`tests/ai/neutralization/test_free_text_pii.py` holds the floor.

Sentences mark each value inline as `[[TYPE:value]]`; everything else must stay untouched.
Two parts with their own templates, fillers and hand-written cases:
- `dev`: what the rules were developed against;
- `held_out`: written before the rules and not looked at while tuning them (its figures are the
  honest ones; several of its names, streets and places are in no gazetteer).
"""

from __future__ import annotations

import random
import re
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from typing import Protocol

TYPES = ("PERSON", "STREET", "LOCALITY", "BIRTHDATE")
SLACK = 3  # characters a correct finding may add around the gold value (spaces, punctuation)
MARK = re.compile(r"\[\[([A-Z]+):(.+?)\]\]")


@dataclass(frozen=True, slots=True)
class Gold:
    start: int
    end: int
    entity_type: str


@dataclass(frozen=True, slots=True)
class Sentence:
    text: str
    gold: tuple[Gold, ...]
    part: str


def parse(marked: str, part: str) -> Sentence:
    """`[[TYPE:value]]` marks → plain text plus gold spans."""
    text, gold, position = [], [], 0
    length = 0
    for match in MARK.finditer(marked):
        before = marked[position : match.start()]
        text.append(before)
        length += len(before)
        value = match.group(2)
        gold.append(Gold(length, length + len(value), match.group(1)))
        text.append(value)
        length += len(value)
        position = match.end()
    text.append(marked[position:])
    return Sentence("".join(text), tuple(gold), part)


def expand(
    templates: Sequence[str],
    fillers: dict[str, Sequence[str]],
    per_template: int,
    seed: int,
) -> list[str]:
    """Each template filled `per_template` times; `{X}` takes a random value of `fillers[X]`
    (values carry their own marks, or none when they are cues such as honorifics)."""
    rng = random.Random(seed)
    out = []
    for template in templates:
        slots = re.findall(r"\{(\w+)\}", template)
        for _ in range(per_template):
            out.append(template.format(**{slot: rng.choice(fillers[slot]) for slot in slots}))
    return out


def corpus(part: str) -> list[Sentence]:
    if part == "dev":
        from tests.ai.neutralization.pii_eval.dev import sentences
    elif part == "held_out":
        from tests.ai.neutralization.pii_eval.held_out import sentences
    else:
        raise ValueError(f"unknown corpus part {part!r}")
    return [parse(marked, part) for marked in sentences()]


class Found(Protocol):
    start: int
    end: int
    entity_type: str


@dataclass
class Score:
    """Per type: gold values, those fully covered by a finding of the type, findings, and the
    findings that overlap a gold value of their type adding at most SLACK characters."""

    gold: int = 0
    covered: int = 0
    found: int = 0
    correct: int = 0
    misses: list[tuple[Sentence, Gold]] = field(default_factory=list)
    wrong: list[tuple[Sentence, Found]] = field(default_factory=list)

    @property
    def recall(self) -> float:
        return self.covered / self.gold if self.gold else float("nan")

    @property
    def precision(self) -> float:
        return self.correct / self.found if self.found else float("nan")


def score(
    sentences: Iterable[Sentence], find: Callable[[str], Sequence[Found]]
) -> dict[str, Score]:
    scores = {kind: Score() for kind in TYPES}
    for sentence in sentences:
        findings = [f for f in find(sentence.text) if f.entity_type in scores]
        for gold in sentence.gold:
            kind = scores[gold.entity_type]
            kind.gold += 1
            if any(
                f.entity_type == gold.entity_type and f.start <= gold.start and f.end >= gold.end
                for f in findings
            ):
                kind.covered += 1
            else:
                kind.misses.append((sentence, gold))
        for finding in findings:
            kind = scores[finding.entity_type]
            kind.found += 1
            if any(
                g.entity_type == finding.entity_type
                and finding.start < g.end
                and g.start < finding.end
                and finding.start >= g.start - SLACK
                and finding.end <= g.end + SLACK
                for g in sentence.gold
            ):
                kind.correct += 1
            else:
                kind.wrong.append((sentence, finding))
    return scores
