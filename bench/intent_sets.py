"""Public data for bench/intent_routing.py: the intent sets (BANKING77 from the shared data
folder, CLINC150 vendored in bench/data/clinc150 with its licence) and questions and sentences
about document facts (GermanQuAD, shared data folder) as negatives no FAQ should answer.

Each set is split the same way: the intents are sorted by name and every 8th one (offset 0) is
held out at test time — its test utterances are the out-of-scope messages, and nothing of it
is ever used to design the router. `--dev` evaluates on a development split instead (BANKING77:
training utterances 41..60 of each intent; CLINC150: its validation split) and holds out each
other 8th group in turn (offsets 1..7), never the test-time one.
"""

from __future__ import annotations

import collections
import csv
import gzip
import json
import random
import re
from dataclasses import dataclass
from pathlib import Path

HOLD_OUT_EVERY = 8
CLINC = Path(__file__).parent / "data" / "clinc150" / "data_full.json.gz"
SENTENCE = re.compile(r"(?<=[.!?])\s+")


@dataclass
class IntentSet:
    name: str
    examples: dict[str, list[str]]  # per intent, its training utterances in file order
    evaluation: list[tuple[str, str]]  # (text, intent) of the evaluated split
    # Messages of no intent at all, where the set has them (CLINC150's "oos" class).
    outside: list[str]

    @property
    def intents(self) -> list[str]:
        return sorted(self.examples)

    def held_out(self, offset: int) -> list[str]:
        return self.intents[offset::HOLD_OUT_EVERY]


def banking77(folder: Path, dev: bool) -> IntentSet:
    def read(path: Path) -> list[tuple[str, str]]:
        with path.open(newline="") as handle:
            return [(row["text"], row["category"]) for row in csv.DictReader(handle)]

    examples: dict[str, list[str]] = collections.defaultdict(list)
    for text, intent in read(folder / "train.csv"):
        examples[intent].append(text)
    if dev:  # utterances 41..60 of each intent: never examples (at most the first 10 are)
        test_held_out = sorted(examples)[::HOLD_OUT_EVERY]
        rows = [
            (t, i) for i, pool in examples.items() if i not in test_held_out for t in pool[40:60]
        ]
    else:
        rows = read(folder / "test.csv")
    return IntentSet("BANKING77", dict(examples), rows, [])


def clinc150(dev: bool) -> IntentSet:
    with gzip.open(CLINC, "rt", encoding="utf-8") as handle:
        data = json.load(handle)
    examples: dict[str, list[str]] = collections.defaultdict(list)
    for text, intent in data["train"]:
        examples[intent].append(text)
    if dev:
        test_held_out = sorted(examples)[::HOLD_OUT_EVERY]
        rows = [(t, i) for t, i in data["val"] if i not in test_held_out]
        outside = [t for t, _ in data["oos_val"]]
    else:
        rows = [(t, i) for t, i in data["test"]]
        outside = [t for t, _ in data["oos_test"]]
    return IntentSet("CLINC150", dict(examples), rows, outside)


def document_negatives(folder: Path, count: int, seed: int = 0) -> dict[str, list[str]]:
    """Questions about one fact of a document, and sentences of the documents (GermanQuAD:
    German Wikipedia sections), `count` of each, drawn reproducibly."""
    with (folder / "queries.jsonl").open(encoding="utf-8") as handle:
        questions = [json.loads(line)["query_text"] for line in handle]
    sentences: list[str] = []
    with (folder / "docs.jsonl").open(encoding="utf-8") as handle:
        for line in handle:
            body = json.loads(line)["text"].split("\n")
            for paragraph in body:
                if paragraph.startswith("=") or len(paragraph) < 40:
                    continue
                sentences += [s for s in SENTENCE.split(paragraph) if 30 <= len(s) <= 300]
    draw = random.Random(seed)
    return {
        "document questions": draw.sample(questions, count),
        "document sentences": draw.sample(sentences, count),
    }
