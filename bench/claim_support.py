"""How well the knowledge-answer check tells supported claims from unsupported ones: the lexical
support score of `agentur.assistant.check_support` against the on-device embedding cosine
(multilingual-e5-small, claim as query, passage as passage), on GermanQuAD (German Wikipedia
sections, shared data folder).

    python bench/claim_support.py [--germanquad DIR] [--count 200]

Three tasks, each with as many supported as unsupported pairs; printed per score: ROC AUC, and
the share of supported / unsupported pairs that pass at the threshold the check uses:
- wrong figure: a sentence of a section with a number is a supported claim of its section;
  the same sentence with that number changed is not (what a model copying "two working days"
  from elsewhere produces);
- other section: the sentence against another section of the same article (a cited passage
  about something else, e.g. warranty for a repair time);
- question coverage: a question against its gold section vs another section of the same
  article (`covers`, which decides between quoting passages and "I don't know").
"""

from __future__ import annotations

import argparse
import collections
import json
import os
import random
import re
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from agentur.ai.providers.local_embedding import QUERY_MARKER, embed_marked  # noqa: E402
from agentur.assistant.check_support import COVERED, SUPPORTED, coverage, support  # noqa: E402

SENTENCE = re.compile(r"(?<=[.!?])\s+")
NUMBER = re.compile(r"\b\d{2,4}\b")


def auc(positive: list[float], negative: list[float]) -> float:
    wins = sum((p > n) + 0.5 * (p == n) for p in positive for n in negative)
    return wins / (len(positive) * len(negative))


def cosine(pairs: list[tuple[str, str]]) -> list[float]:
    claims = embed_marked("multilingual-e5-small", [QUERY_MARKER + c for c, _ in pairs])
    unique = list(dict.fromkeys(p[:2000] for _, p in pairs))
    vectors = dict(zip(unique, embed_marked("multilingual-e5-small", unique), strict=True))
    a, b = np.asarray(claims), np.asarray([vectors[p[:2000]] for _, p in pairs])
    a /= np.linalg.norm(a, axis=1, keepdims=True)
    b /= np.linalg.norm(b, axis=1, keepdims=True)
    return (a * b).sum(axis=1).tolist()


def show(
    task: str,
    positive: list[tuple[str, str]],
    negative: list[tuple[str, str]],
    lexical,
    threshold: float,
) -> None:
    lex_p = [lexical(c, p) for c, p in positive]
    lex_n = [lexical(c, p) for c, p in negative]
    emb_p, emb_n = cosine(positive), cosine(negative)
    passed = np.mean([x >= threshold for x in lex_p]), np.mean([x >= threshold for x in lex_n])
    print(
        f"{task} ({len(positive)} + {len(negative)} pairs): lexical AUC {auc(lex_p, lex_n):.3f}, "
        f"passes at {threshold:.2f}: {passed[0]:.3f} supported / {passed[1]:.3f} unsupported; "
        f"embedding cosine AUC {auc(emb_p, emb_n):.3f}"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--germanquad", type=Path, default=Path("/work/shared/data/germanquad"))
    parser.add_argument("--count", type=int, default=200)
    args = parser.parse_args()
    print(f"load average: {' '.join(f'{x:.2f}' for x in os.getloadavg())}")
    draw = random.Random(0)
    docs = [json.loads(line) for line in (args.germanquad / "docs.jsonl").open(encoding="utf-8")]
    text = {d["doc_id"]: d["text"] for d in docs}
    article = collections.defaultdict(list)
    for d in docs:
        article[d["text"].split("\n")[0]].append(d["doc_id"])
    sibling = {
        doc: draw.choice([o for o in article[t.split("\n")[0]] if o != doc])
        for doc, t in text.items()
        if len(article[t.split("\n")[0]]) > 1
    }
    sentences = [
        (s, doc)
        for doc, t in text.items()
        if doc in sibling
        for s in SENTENCE.split(t.split("\n", 1)[-1].replace("\n", " "))
        if 40 <= len(s) <= 300
    ]
    with_number = [(s, d) for s, d in sentences if NUMBER.search(s)]
    picked = draw.sample(with_number, args.count)
    changed = [(NUMBER.sub(lambda m: str(int(m.group()) + 7), s, count=1), d) for s, d in picked]
    show(
        "wrong figure",
        [(s, text[d]) for s, d in picked],
        [(s, text[d]) for s, d in changed],
        support,
        SUPPORTED,
    )
    picked = draw.sample(sentences, args.count)
    show(
        "other section",
        [(s, text[d]) for s, d in picked],
        [(s, text[sibling[d]]) for s, d in picked],
        support,
        SUPPORTED,
    )
    queries = {
        json.loads(line)["query_id"]: json.loads(line)["query_text"]
        for line in (args.germanquad / "queries.jsonl").open(encoding="utf-8")
    }
    gold = [
        (queries[r["query_id"]], r["doc_id"])
        for r in map(json.loads, (args.germanquad / "qrels.jsonl").open(encoding="utf-8"))
        if r["doc_id"] in sibling
    ]
    picked = draw.sample(gold, args.count)
    show(
        "question coverage",
        [(q, text[d]) for q, d in picked],
        [(q, text[sibling[d]]) for q, d in picked],
        coverage,
        COVERED,
    )
    print(f"load average: {' '.join(f'{x:.2f}' for x in os.getloadavg())}")


if __name__ == "__main__":
    main()
