"""The router's classifier over FAQ/flow examples, and its out-of-scope threshold calibrated
from the same examples — no test data, no constants tied to one embedding model.

Two heads, mixed by probability (`EMBEDDING_WEIGHT`):
- multinomial logistic regression on the examples' embedding vectors, standardized by their
  own mean and spread, so the scale of a model's cosines does not matter;
- the same regression on character n-grams of the examples (`lexical_head.py`): surface
  forms, inflections and typos the embedding blurs.
One extra class holds generic out-of-scope messages shipped with the package
(`data/out_of_scope.txt`, de/fr/it/en): a message nearer to those than to any FAQ or flow is
out of scope.

Whether the winning class is sure enough is its probability against a threshold chosen by
cross-validation on the examples alone: every example of a fold of *candidates*, scored by
heads that never saw those candidates, and a fold of the background examples, are out-of-scope
pseudo-messages; the threshold is the lowest at which at most `out_of_scope_rate` of them
would still be answered. So it follows the number and spread of the examples and the
embedding model (another model gets its own), and the setting says what it means. (Maximizing
in-scope accuracy + rejection of the same pseudo-messages instead answered fewer in-scope
messages at the same out-of-scope rate on BANKING77 dev utterances.)

BANKING77 figures (accuracy, the whole rejection curve, the chosen point): bench/intent_routing.py.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

import numpy as np

from agentur.assistant.lexical_head import LexicalHead, train_lexical
from agentur.assistant.softmax_regression import fit_softmax, softmax

BACKGROUND_FILE = Path(__file__).parent / "data" / "out_of_scope.txt"
# Fitting the embedding head: L2 strength and Adam steps. Checked on BANKING77 *training*
# utterances that are no examples (`bench/intent_routing.py --dev`): L2 1e-3…3e-2 and 150 or
# 300 steps change accuracy by less than 0.005 there, so the cheaper setting stays.
L2 = 1e-2
STEPS = 150
# Share of the embedding head in the mix (the lexical head has the rest). On the same dev
# utterances (first 10 / 5 per intent): 1.0 → 0.813 / 0.753 accuracy, 0.8 → 0.819 / 0.749,
# 0.7 → 0.823 / 0.750; in-scope accuracy at 0.2 out-of-scope answered 0.659 → 0.676 (0.8),
# 0.673 (0.7) with 10 examples, unchanged with 5.
EMBEDDING_WEIGHT = 0.75
FOLDS = 3
# Without enough evidence (two candidates, one example each) calibration returns this.
DEFAULT_THRESHOLD = 0.5


@lru_cache(maxsize=1)
def background_texts() -> tuple[str, ...]:
    lines = BACKGROUND_FILE.read_text(encoding="utf-8").splitlines()
    return tuple(line.strip() for line in lines if line.strip() and not line.startswith("#"))


@dataclass(frozen=True, slots=True)
class Head:
    mean: np.ndarray
    scale: np.ndarray
    weights: np.ndarray  # features × classes
    bias: np.ndarray

    def probabilities(self, vectors: np.ndarray) -> np.ndarray:
        return softmax(
            ((np.atleast_2d(vectors) - self.mean) / self.scale) @ self.weights + self.bias
        )


@dataclass(frozen=True, slots=True)
class Mixed:
    """The embedding head and the lexical head, probabilities mixed."""

    embedding: Head
    lexical: LexicalHead

    def probabilities(self, vectors: np.ndarray, texts: list[str]) -> np.ndarray:
        return EMBEDDING_WEIGHT * self.embedding.probabilities(vectors) + (
            1 - EMBEDDING_WEIGHT
        ) * self.lexical.probabilities(texts)


@dataclass(frozen=True, slots=True)
class Calibrated:
    head: Mixed
    threshold: float  # lowest winning probability that counts as a match
    background: int | None  # class index of the background set (None: not trained)


def train(vectors: np.ndarray, labels: np.ndarray, classes: int) -> Head:
    """The embedding head; float32 is twice as fast as float64 with the same decisions."""
    vectors = vectors.astype(np.float32)
    mean = vectors.mean(axis=0)
    scale = vectors.std(axis=0) + 1e-6
    weights, bias = fit_softmax((vectors - mean) / scale, labels, classes, L2, STEPS)
    return Head(mean, scale, weights, bias)


def train_mixed(vectors: np.ndarray, texts: list[str], labels: np.ndarray, classes: int) -> Mixed:
    return Mixed(train(vectors, labels, classes), train_lexical(texts, labels, classes))


def _out_of_scope_confidences(
    vectors: np.ndarray, texts: list[str], labels: np.ndarray, classes: int, background: int | None
) -> tuple[list[float], list[float]]:
    """Winning probabilities (0 where the background wins) of out-of-scope pseudo-messages:
    (examples of candidates the heads never saw, background examples they never saw).

    One pair of heads per fold of the candidates, trained without them and without a fold of
    the background examples: every example of the candidates it never saw, and the held
    background ones, are messages it should not answer."""
    unknown: list[float] = []
    chatter: list[float] = []
    candidates = [c for c in range(classes) if c != background]
    in_background = np.flatnonzero(labels == background)
    for fold in range(FOLDS):
        unseen = candidates[fold::FOLDS]
        seen = [c for c in range(classes) if c not in unseen]
        if len(seen) < 2:
            continue
        remap = np.full(classes, -1)
        remap[seen] = np.arange(len(seen))
        held = ~np.isin(labels, seen)
        if len(in_background) >= FOLDS:  # a smaller background stays whole in training
            held[in_background[fold::FOLDS]] = True
        learn = np.flatnonzero(~held)
        heads = train_mixed(
            vectors[learn], [texts[i] for i in learn], remap[labels[learn]], len(seen)
        )
        scored = np.flatnonzero(held)
        probabilities = heads.probabilities(vectors[scored], [texts[i] for i in scored])
        inner_background = remap[background] if background is not None else -1
        wins = probabilities.argmax(axis=1) == inner_background
        sure = np.where(wins, 0.0, probabilities.max(axis=1))
        is_background = labels[scored] == background
        unknown += sure[~is_background].tolist()
        chatter += sure[is_background].tolist()
    return unknown, chatter


def threshold_for(outside: list[float], out_of_scope_rate: float) -> float:
    """The lowest threshold at which at most `out_of_scope_rate` of the out-of-scope
    confidences are still answered (at or above it)."""
    ranked = np.sort(np.asarray(outside))[::-1]
    allowed = int(np.floor(out_of_scope_rate * len(ranked) + 1e-9))
    if allowed >= len(ranked):
        return 0.0
    return float(np.nextafter(ranked[allowed], np.inf))


def fit(
    vectors: np.ndarray,
    texts: list[str],
    labels: np.ndarray,
    classes: int,
    background: int | None,
    out_of_scope_rate: float,
) -> Calibrated:
    """Heads on all examples plus the calibrated threshold. CPU-bound: run it off the loop.

    The rate holds for both kinds of out-of-scope message apart — questions on a topic no
    FAQ or flow covers, and off-topic chatter — so that an assistant with few candidates,
    whose pseudo-messages are nearly all background ones the background class wins anyway,
    still gets a threshold from its candidates."""
    groups = _out_of_scope_confidences(vectors, texts, labels, classes, background)
    found = [threshold_for(group, out_of_scope_rate) for group in groups if group]
    threshold = max(found) if found else DEFAULT_THRESHOLD
    return Calibrated(train_mixed(vectors, texts, labels, classes), threshold, background)
