"""BANKING77 measurement of the assistant's model-free router (keywords + the similarity leg:
classifier head over example embeddings with a calibrated out-of-scope threshold, S8 fallback).

    python bench/intent_routing.py [--model NAME] [--triggers 10 5] [--data DIR] [--dev]

Setup, as an assistant author would configure it, with no hand curation:
- each of the 77 intents becomes a flow whose trigger examples are its *first* N training
  utterances (N = 10 and 5);
- keywords per intent: whole words found in >= 3 of its triggers and in no other intent's;
- the router scores every intent exactly as `agentur.assistant.route_message` does: the mixed
  embedding + character n-gram heads of `agentur.assistant.intent_head` (trained on the
  triggers plus the shipped background class), mapped onto the router threshold by
  `embedding_router.router_scores`, merged with keywords (a keyword hit only confirms the
  similarity's best intent, as `route_message.confirming`). Without rejection the embedding
  head alone is printed too (what the lexical head adds).

Out-of-scope check: 10 intents (every 8th by name) get no triggers; their test utterances must
be rejected. The threshold is the one the router calibrates itself by cross-validation on the
triggers and the background set for `AGENTUR_ASSISTANT_ROUTER_OUT_OF_SCOPE_RATE`: no utterance
of the held-out intents (and nothing of test.csv) is involved. The whole accuracy/rejection
curve is printed beside the chosen point, and the in-scope accuracy where exactly the target
share of out-of-scope messages would be answered (how good the curve is, whatever the
calibration picks).

Latency: p50/p95 per message of the model-free routing (embedding the message, both heads,
keywords) over 100 messages, one at a time.

`--dev` (for choosing the head's fixed parameters) evaluates on training utterances that are no
triggers (41..60 of each intent) instead of test.csv, and never uses the 10 test-time
out-of-scope intents: 67 intents without rejection, then each of the other seven "every 8th"
groups held out in turn (one line per split and their mean). `--model`: a local embedding
engine (default: the knowledge store's `AGENTUR_KNOWLEDGE_LOCAL_EMBEDDING_MODEL`). Vectors are
cached in `--cache`.
"""

from __future__ import annotations

import argparse
import asyncio
import collections
import csv
import hashlib
import os
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from agentur.ai.providers.local_embedding import QUERY_MARKER  # noqa: E402
from agentur.assistant.embedding_router import examples_of, router_scores  # noqa: E402
from agentur.assistant.intent_head import Calibrated, fit  # noqa: E402
from agentur.assistant.keyword_router import Candidate, keyword_score  # noqa: E402
from agentur.assistant.settings import AssistantSettings  # noqa: E402
from agentur.assistant.text_tokens import STOP_WORDS, words  # noqa: E402

SETTINGS = AssistantSettings()
ROUTER = SETTINGS.assistant_router_threshold
SHIFT, FLOOR = SETTINGS.assistant_similarity_threshold, SETTINGS.assistant_similarity_floor
RATE = SETTINGS.assistant_router_out_of_scope_rate
HOLD_OUT_EVERY = 8
Evaluation = tuple[list[str], list[str], np.ndarray]  # texts, intents, unit vectors
CURVE = [round(x, 2) for x in np.arange(0.0, 1.0, 0.05)]


class Embedder:
    """The local embedding provider as the router calls it (both sides as E5 queries), with an
    on-disk cache keyed by text hash."""

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
        marked = [QUERY_MARKER + text for text in texts]
        keys = [hashlib.sha1(t.encode()).hexdigest() for t in marked]
        missing = [t for t, k in zip(marked, keys, strict=True) if k not in self.cache]
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
        matrix = np.stack([self.cache[k] for k in keys]).astype(float)
        return matrix / np.linalg.norm(matrix, axis=1, keepdims=True)


def read(path: Path) -> list[tuple[str, str]]:
    with path.open(newline="") as handle:
        return [(row["text"], row["category"]) for row in csv.DictReader(handle)]


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


class Router:
    """The runtime router over fixed candidates: fitted head + keywords, as route_message."""

    def __init__(self, triggers: dict[str, list[str]], embed: Embedder) -> None:
        keywords = derive_keywords(triggers)
        self.intents = list(triggers)
        self.candidates = [Candidate("flow", i, tuple(triggers[i]), keywords[i]) for i in triggers]
        texts, labels, classes = examples_of(self.candidates)
        started = time.perf_counter()
        self.fitted: Calibrated = fit(embed(texts), texts, labels, classes, classes - 1, RATE)
        self.fit_seconds = time.perf_counter() - started

    def scores(
        self, texts: list[str], vectors: np.ndarray, threshold: float | None, with_keywords: bool
    ) -> np.ndarray:
        shift = SHIFT if threshold is None else threshold - self.fitted.threshold
        floor = FLOOR if threshold is None else 0.0
        probabilities = self.fitted.probabilities(vectors, texts)
        similarity = router_scores(probabilities, self.fitted, shift, floor, ROUTER)
        if not with_keywords:
            return similarity
        # As `route_message.confirming`: a keyword hit only counts for the similarity's best.
        best = similarity.argmax(axis=1)
        rows = np.arange(len(texts))
        keywords = np.zeros_like(similarity)
        keywords[rows, best] = [
            keyword_score(t, self.candidates[b], False).score
            for t, b in zip(texts, best, strict=True)
        ]
        return np.maximum(similarity, keywords)


def rates(scores: np.ndarray, expected: np.ndarray) -> tuple[float, float]:
    """(in-scope accuracy, share of out-of-scope messages answered) at the router threshold."""
    answered = scores.max(axis=1) >= ROUTER
    inside = expected >= 0
    accuracy = float(((scores.argmax(axis=1) == expected) & answered & inside).sum() / inside.sum())
    false_answers = float((answered & ~inside).sum() / (~inside).sum())
    return accuracy, false_answers


def in_scope_at(
    router: Router,
    texts: list[str],
    vectors: np.ndarray,
    expected: np.ndarray,
    answered_share: float,
) -> float:
    """In-scope accuracy of the similarity leg at the threshold that answers
    `answered_share` of these out-of-scope messages (the curve's quality, not a setting)."""
    probabilities = router.fitted.probabilities(vectors, texts)
    background = router.fitted.background
    candidates = np.delete(probabilities, background, axis=1)
    sure = np.where(probabilities.argmax(axis=1) == background, -1.0, candidates.max(axis=1))
    inside = expected >= 0
    ranked = np.sort(sure[~inside])[::-1]
    cut = ranked[min(int(answered_share * len(ranked)), len(ranked) - 1)]
    right = (candidates.argmax(axis=1) == expected) & inside & (sure > cut)
    return float(right.sum() / inside.sum())


def closed_set(
    count: int,
    intents: list[str],
    by_intent: dict[str, list[str]],
    evaluation: Evaluation,
    embed: Embedder,
) -> None:
    texts, labels, vectors = evaluation
    full = Router({i: by_intent[i][:count] for i in intents}, embed)
    expected = np.array([intents.index(c) for c in labels])
    alone = full.fitted.head.embedding.probabilities(vectors)[:, :-1]
    accuracy = float((alone.argmax(axis=1) == expected).mean())
    n = len(intents)
    print(f"{n} intents, no rejection, {'embedding head only':<22} accuracy {accuracy:.4f}")
    for with_keywords in (False, True):
        scores = full.scores(texts, vectors, None, with_keywords)
        accuracy = float((scores.argmax(axis=1) == expected).mean())
        name = "keywords + similarity" if with_keywords else "similarity (both heads)"
        print(f"{n} intents, no rejection, {name:<22} accuracy {accuracy:.4f}")
    print(f"(head fitted and calibrated in {full.fit_seconds:.1f}s)")


def rejection(
    count: int,
    known: list[str],
    by_intent: dict[str, list[str]],
    evaluation: Evaluation,
    embed: Embedder,
    curve: bool,
) -> tuple[Router, list[float]]:
    """The router over `known` intents; messages of any other intent in `evaluation` must be
    rejected. Prints the whole curve (`curve`) or only the chosen point."""
    texts, labels, vectors = evaluation
    router = Router({i: by_intent[i][:count] for i in known}, embed)
    expected = np.array([known.index(c) if c in known else -1 for c in labels])
    chosen = [rates(router.scores(texts, vectors, None, flag), expected) for flag in (False, True)]
    at_rate = in_scope_at(router, texts, vectors, expected, RATE)
    if not curve:
        print(
            f"  {len(known)} in scope, {int((expected < 0).sum())} out of scope: threshold "
            f"{router.fitted.threshold:.3f}, chosen {chosen[0][0]:.3f} / {chosen[0][1]:.3f} | "
            f"{chosen[1][0]:.3f} / {chosen[1][1]:.3f}; in-scope at {RATE:.2f} answered "
            f"{at_rate:.3f}"
        )
        return router, [*chosen[0], *chosen[1], at_rate]
    print(
        f"calibrated threshold (cross-validation on the triggers + background set, out-of-"
        f"scope rate {RATE:.2f}): {router.fitted.threshold:.3f}; setting shift {SHIFT:+.2f}, "
        f"floor {FLOOR:.2f}"
    )
    print(
        "  threshold   in-scope acc / OOS false answers (similarity only | keywords + similarity)"
    )
    for threshold in CURVE:
        row = [rates(router.scores(texts, vectors, threshold, f), expected) for f in (False, True)]
        print(
            f"  {threshold:>9.2f}   {row[0][0]:.3f} / {row[0][1]:.3f}   |   {row[1][0]:.3f} / "
            f"{row[1][1]:.3f}"
        )
    print(
        f"  {'chosen':>9}   {chosen[0][0]:.3f} / {chosen[0][1]:.3f}   |   {chosen[1][0]:.3f} / "
        f"{chosen[1][1]:.3f}  <- operating point"
    )
    print(f"  in-scope accuracy where {RATE:.2f} of the OOS messages are answered: {at_rate:.3f}")
    return router, [*chosen[0], *chosen[1], at_rate]


def evaluate(
    count: int, by_intent: dict[str, list[str]], evaluation: Evaluation, embed: Embedder, dev: bool
) -> Router:
    """Test: 77 intents without rejection, then 10 held out (every 8th by name). Dev: those 10
    are never used; 67 intents without rejection, then each other 8th (offsets 1..7) held out
    in turn, so choices made on dev never see a test-time out-of-scope intent."""
    intents = sorted(by_intent)
    test_held_out = intents[::HOLD_OUT_EVERY]
    if dev:
        intents = [i for i in intents if i not in test_held_out]
    print(f"\n=== first {count} training utterances per intent ===")
    closed_set(count, intents, by_intent, evaluation, embed)
    if not dev:
        known = [i for i in intents if i not in test_held_out]
        print(
            f"\nout-of-scope check: {len(test_held_out)} intents held out (every "
            f"{HOLD_OUT_EVERY}th by name), {len(known)} in scope; "
            f"{sum(c in test_held_out for c in evaluation[1])} out-of-scope messages"
        )
        return rejection(count, known, by_intent, evaluation, embed, curve=True)[0]
    print("\nout-of-scope check on dev, each split's held-out intents disjoint from the test ones")
    print("  chosen: in-scope acc / OOS false answers (similarity only | keywords + similarity)")
    figures = []
    for offset in range(1, HOLD_OUT_EVERY):
        held_out = set(sorted(by_intent)[offset::HOLD_OUT_EVERY])
        known = [i for i in intents if i not in held_out]
        router, found = rejection(count, known, by_intent, evaluation, embed, curve=False)
        figures.append(found)
    mean = np.mean(figures, axis=0)
    print(
        f"  mean over {len(figures)} splits: chosen {mean[0]:.3f} / {mean[1]:.3f} | "
        f"{mean[2]:.3f} / {mean[3]:.3f}; in-scope at {RATE:.2f} answered {mean[4]:.3f}"
    )
    return router


def latency(router: Router, embed: Embedder, texts: list[str]) -> None:
    """Per message, one at a time as a visitor sends them: embed (uncached), score, keywords."""
    took = []
    for text in texts:
        began = time.perf_counter()
        vector = embed.raw([QUERY_MARKER + text])
        router.scores([text], vector / np.linalg.norm(vector), None, True)
        took.append(time.perf_counter() - began)
    p50, p95 = (float(np.percentile(took, q)) * 1000 for q in (50, 95))
    print(
        f"\nrouting latency per message ({len(texts)}, one at a time): "
        f"p50 {p50:.0f} ms, p95 {p95:.0f} ms"
    )


def main() -> None:
    from agentur.knowledge.settings import KnowledgeSettings

    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--data", type=Path, default=Path("/work/shared/data/banking77"))
    parser.add_argument("--triggers", type=int, nargs="+", default=[10, 5])
    parser.add_argument("--model", default=KnowledgeSettings().knowledge_local_embedding_model)
    parser.add_argument("--dev", action="store_true", help="evaluate on non-trigger training data")
    parser.add_argument("--cache", type=Path, default=Path.home() / ".cache" / "agentur-bench")
    args = parser.parse_args()
    print(f"load average: {' '.join(f'{x:.2f}' for x in os.getloadavg())}")

    train = read(args.data / "train.csv")
    by_intent: dict[str, list[str]] = collections.defaultdict(list)
    for text, intent in train:
        by_intent[intent].append(text)
    if args.dev:  # utterances 41..60 of each intent: never triggers (at most the first 10)
        test_held_out = sorted(by_intent)[::HOLD_OUT_EVERY]
        rows = [
            (t, i) for i, pool in by_intent.items() if i not in test_held_out for t in pool[40:60]
        ]
    else:
        rows = read(args.data / "test.csv")
    embed = Embedder(args.model, args.cache)
    texts, labels = [t for t, _ in rows], [c for _, c in rows]
    evaluation: Evaluation = (texts, labels, embed(texts))
    split = "dev split (training utterances)" if args.dev else "test.csv"
    print(f"embedding model: {embed.name}; evaluated on {split}: {len(texts)} utterances")
    for count in args.triggers:
        router = evaluate(count, by_intent, evaluation, embed, args.dev)
    latency(router, embed, texts[:100])
    sample = texts[:128]
    began = time.perf_counter()
    embed.raw(sample)
    rate = len(sample) / (time.perf_counter() - began)
    print(f"\nembedding throughput (uncached, batch of {len(sample)}): {rate:.0f} sentences/s")
    print(f"load average: {' '.join(f'{x:.2f}' for x in os.getloadavg())}")


if __name__ == "__main__":
    main()
