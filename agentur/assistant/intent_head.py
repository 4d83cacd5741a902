"""A small classifier head over example embeddings, and its out-of-scope threshold calibrated
from the same examples — no test data, no constants tied to one embedding model.

The head is multinomial logistic regression (numpy) on the examples' vectors, standardized by
their own mean and spread, so the scale of a model's cosines does not matter. One extra class
holds generic out-of-scope messages shipped with the package (`data/out_of_scope.txt`, de/fr/
it/en): a message nearer to those than to any FAQ or flow is out of scope.

Whether the winning class is sure enough is its probability against a threshold chosen by
cross-validation on the examples alone:
- in-scope pseudo-messages: each fold of every candidate's examples, scored by a head trained
  without that fold (right class and sure enough counts as answered);
- out-of-scope pseudo-messages: every example of a fold of *candidates*, scored by a head that
  never saw those candidates, plus the background examples of each fold;
the threshold maximizes in-scope accuracy + out-of-scope rejection, so it follows the number
and spread of the examples and the embedding model (another model gets its own).

BANKING77 figures (accuracy, the whole rejection curve, the chosen point): bench/intent_routing.py.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

import numpy as np

BACKGROUND_FILE = Path(__file__).parent / "data" / "out_of_scope.txt"
# Fitting: L2 strength, Adam steps and step size. Checked on BANKING77 *training* utterances
# that are no examples (`bench/intent_routing.py --dev`): L2 1e-3…3e-2 and 150 or 300 steps
# change accuracy by less than 0.005 there, so the cheaper setting stays.
L2 = 1e-2
STEPS = 150
STEP_SIZE = 0.05
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
        return _softmax(
            ((np.atleast_2d(vectors) - self.mean) / self.scale) @ self.weights + self.bias
        )


@dataclass(frozen=True, slots=True)
class Calibrated:
    head: Head
    threshold: float  # lowest winning probability that counts as a match
    background: int | None  # class index of the background set (None: not trained)


def _softmax(logits: np.ndarray) -> np.ndarray:
    shifted = np.exp(logits - logits.max(axis=1, keepdims=True))
    return shifted / shifted.sum(axis=1, keepdims=True)


def train(vectors: np.ndarray, labels: np.ndarray, classes: int) -> Head:
    """Softmax regression with Adam from zero weights: deterministic for the same inputs."""
    vectors = vectors.astype(np.float32)  # twice as fast as float64, same decisions
    mean = vectors.mean(axis=0)
    scale = vectors.std(axis=0) + 1e-6
    features = (vectors - mean) / scale
    targets = np.eye(classes, dtype=np.float32)[labels]
    weights = np.zeros((features.shape[1], classes), dtype=np.float32)
    bias = np.zeros(classes, dtype=np.float32)
    first, second = np.zeros_like(weights), np.zeros_like(weights)
    for step in range(1, STEPS + 1):
        error = _softmax(features @ weights + bias) - targets
        gradient = features.T @ error / len(features) + L2 * weights
        first = 0.9 * first + 0.1 * gradient
        second = 0.999 * second + 0.001 * gradient**2
        corrected = first / (1 - 0.9**step)
        weights -= STEP_SIZE * corrected / (np.sqrt(second / (1 - 0.999**step)) + 1e-8)
        bias -= STEP_SIZE * error.mean(axis=0)
    return Head(mean, scale, weights, bias)


def _pseudo_messages(
    vectors: np.ndarray, labels: np.ndarray, classes: int, background: int | None
) -> tuple[list[float], list[bool], list[float]]:
    """(in-scope confidences, whether each was the right class, out-of-scope confidences).

    One head per fold, trained without a share of every class's examples *and* without a
    share of the candidates: the held examples of the candidates it saw are in-scope
    messages, every example of the candidates it never saw (and the held background ones)
    out-of-scope messages."""
    inside: list[float] = []
    right: list[bool] = []
    outside: list[float] = []
    candidates = [c for c in range(classes) if c != background]
    position = np.zeros(len(labels), dtype=int)  # index of each example within its class
    for c in range(classes):
        position[labels == c] = np.arange((labels == c).sum())
    # A class with a single example is never held out: it would vanish from training.
    several = np.bincount(labels, minlength=classes)[labels] >= 2
    for fold in range(FOLDS):
        unseen = candidates[fold::FOLDS]
        seen = [c for c in range(classes) if c not in unseen]
        if len(seen) < 2:
            continue
        remap = np.full(classes, -1)
        remap[seen] = np.arange(len(seen))
        is_seen = np.isin(labels, seen)
        held = (position % FOLDS == fold) & several & is_seen
        learn = is_seen & ~held
        head = train(vectors[learn], remap[labels[learn]], len(seen))
        scored = held | ~is_seen
        probabilities = head.probabilities(vectors[scored])
        winners = probabilities.argmax(axis=1)
        inner_background = remap[background] if background is not None else -1
        sure = np.where(winners == inner_background, 0.0, probabilities.max(axis=1))
        for label, winner, value in zip(labels[scored], winners, sure, strict=True):
            if label == background or remap[label] < 0:
                outside.append(float(value))
            else:
                inside.append(float(value))
                right.append(bool(remap[label] == winner))
    return inside, right, outside


def calibrate(
    vectors: np.ndarray, labels: np.ndarray, classes: int, background: int | None
) -> float:
    """The winning-probability threshold that maximizes in-scope accuracy + out-of-scope
    rejection on the examples' cross-validation."""
    inside, right, outside = _pseudo_messages(vectors, labels, classes, background)
    if not inside or not outside:
        return DEFAULT_THRESHOLD
    sure, correct, other = np.array(inside), np.array(right), np.array(outside)
    best, chosen = -1.0, DEFAULT_THRESHOLD
    for threshold in np.unique(np.concatenate([sure, other, [1.0]])):
        answered = (correct & (sure >= threshold)).mean()
        rejected = (other < threshold).mean()
        if answered + rejected > best:
            best, chosen = answered + rejected, float(threshold)
    return chosen


def fit(
    vectors: np.ndarray, labels: np.ndarray, classes: int, background: int | None
) -> Calibrated:
    """Head on all examples plus its calibrated threshold. CPU-bound: run it off the loop."""
    return Calibrated(
        train(vectors, labels, classes), calibrate(vectors, labels, classes, background), background
    )
