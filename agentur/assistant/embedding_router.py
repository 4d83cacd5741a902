"""Similarity of a visitor message to trigger examples and FAQ variants (beyond S8's keyword
router), with embeddings from the gateway (or a local model in the bench).

Per candidate the similarity is a blend of the cosine to its nearest example and to the
centroid of its examples: the nearest example alone overrates one lucky paraphrase, the
centroid alone blurs intents with varied examples (BANKING77, 10 curated examples: 0.858 →
0.864; the first 10: 0.733 → 0.763; bench/intent_routing.py).

Whether the best candidate is a match at all is decided on a confidence that is calibrated
per candidate from its own examples, so no test data is involved: how much the message's
blend exceeds the candidate's *typical* blend (each example against the others, leave one
out) plus the margin to the runner-up. Tight intents need a closer message than loose ones,
and a message halfway between two intents counts as unsure. Without an example above an
absolute cosine floor there is no match: an assistant with three candidates has a wide
margin for any message.

Example vectors are cached per (model, text) in the process, so a turn embeds only the
message once an assistant's examples were seen.
"""

from __future__ import annotations

from collections import OrderedDict
from dataclasses import dataclass
from typing import Protocol

import numpy as np

from agentur.ai.service import AiService
from agentur.assistant.keyword_router import Candidate, Scored
from agentur.context import RequestContext

CACHE_SIZE = 20_000
# Weight of the nearest example against the centroid (an even mix; the dev split of the
# bench prefers 0.5-0.75, test.csv was not consulted).
NEAREST_WEIGHT = 0.5
# Typical blend assumed for a candidate with a single example when no other candidate has
# two or more (never the case at runtime: the person candidate always has several).
FALLBACK_TYPICAL = 0.9
# Keeps a runner-up strictly below the winner after calibration.
RUNNER_UP_GAP = 1e-6
# Puts a candidate under the floor just below the confidence threshold.
FLOOR_GAP = 1e-3


@dataclass(frozen=True, slots=True)
class Vectors:
    model: str
    vectors: list[list[float]]


class Embedder(Protocol):
    async def embed(self, texts: list[str]) -> Vectors: ...


@dataclass
class GatewayEmbedder:
    """Embeddings through the AI gateway (billing, neutralization and selection happen there)."""

    ai: AiService
    context: RequestContext

    async def embed(self, texts: list[str]) -> Vectors:
        result = await self.ai.embed(texts, "assistant_router", self.context)
        return Vectors(result.model, result.vectors)


@dataclass(frozen=True, slots=True)
class Similarity:
    candidate: Candidate
    score: float  # blend of nearest-example and centroid cosine
    nearest: float  # cosine to the nearest example
    typical: float | None  # leave-one-out blend of its own examples (None: one example)


_cache: OrderedDict[tuple[str, str], np.ndarray] = OrderedDict()


def unit_rows(vectors: np.ndarray) -> np.ndarray:
    norms = np.linalg.norm(vectors, axis=-1, keepdims=True)
    return vectors / np.where(norms == 0, 1.0, norms)


def blend(queries: np.ndarray, examples: np.ndarray) -> np.ndarray:
    """Blend for each (unit) query row against one candidate's (unit) example rows."""
    centroid = unit_rows(examples.mean(axis=0))
    return NEAREST_WEIGHT * (queries @ examples.T).max(axis=1) + (1 - NEAREST_WEIGHT) * (
        queries @ centroid
    )


def typical_blend(examples: np.ndarray) -> float | None:
    """Mean blend of each example against the candidate's other examples (leave one out)."""
    count = len(examples)
    if count < 2:
        return None
    pairwise = examples @ examples.T
    np.fill_diagonal(pairwise, -np.inf)
    others = unit_rows(examples.sum(axis=0)[None, :] - examples)
    loo = NEAREST_WEIGHT * pairwise.max(axis=1) + (1 - NEAREST_WEIGHT) * (examples * others).sum(
        axis=1
    )
    return float(loo.mean())


def confidences(scores: np.ndarray, typicals: np.ndarray) -> np.ndarray:
    """Per row of blends (queries × candidates): (blend − typical) + margin to the best other
    candidate. The row's best blend keeps the best confidence, so calibration never changes
    which candidate wins — only whether it is sure enough."""
    scores = np.atleast_2d(scores)
    count = scores.shape[1]
    order = np.argsort(-scores, axis=1)
    rows = np.arange(len(scores))
    best, second = scores[rows, order[:, 0]], scores[rows, order[:, 1]] if count > 1 else None
    best_other = np.repeat(best[:, None], count, axis=1)
    if second is not None:
        best_other[rows, order[:, 0]] = second
    else:
        best_other[rows, order[:, 0]] = best  # alone: no margin either way
    confidence = (scores - typicals[None, :]) + (scores - best_other)
    winner = confidence[rows, order[:, 0]]
    capped = np.minimum(confidence, winner[:, None] - RUNNER_UP_GAP)
    capped[rows, order[:, 0]] = winner
    return capped


def floored(
    confidence: np.ndarray, nearest: np.ndarray, floor: float, threshold: float
) -> np.ndarray:
    """Rows (queries × candidates) whose winner has no example at least `floor` close are
    shifted below the threshold, order kept: with only a few candidates the margin to the
    runner-up is wide for any message, so the confidence alone proves nothing."""
    confidence = np.atleast_2d(confidence)
    rows = np.arange(len(confidence))
    winner = confidence.argmax(axis=1)
    unsure = np.atleast_2d(nearest)[rows, winner] < floor
    excess = np.maximum(0.0, confidence[rows, winner] - (threshold - FLOOR_GAP))
    return confidence - np.where(unsure, excess, 0.0)[:, None]


def calibrated(value: np.ndarray | float, threshold: float, router_threshold: float) -> np.ndarray:
    """Map a confidence onto the router's score scale so that the configured threshold lands
    exactly on the router threshold (one decision threshold overall)."""
    span = (1.0 - router_threshold) / max(1e-6, 1.0 - threshold)
    return np.clip(router_threshold + (np.asarray(value) - threshold) * span, 0.0, 1.0)


def typicals_of(similarities: list[Similarity]) -> np.ndarray:
    known = [s.typical for s in similarities if s.typical is not None]
    fallback = float(np.mean(known)) if known else FALLBACK_TYPICAL
    return np.array([s.typical if s.typical is not None else fallback for s in similarities])


async def _example_vectors(
    embedder: Embedder, model: str, texts: list[str]
) -> dict[str, np.ndarray]:
    missing = [text for text in dict.fromkeys(texts) if (model, text) not in _cache]
    if missing:
        fresh = await embedder.embed(missing)
        for text, vector in zip(missing, unit_rows(np.asarray(fresh.vectors)), strict=True):
            _cache[(fresh.model, text)] = vector
        while len(_cache) > CACHE_SIZE:
            _cache.popitem(last=False)
    return {text: _cache[(model, text)] for text in texts if (model, text) in _cache}


async def rank_by_similarity(
    message: str, candidates: list[Candidate], embedder: Embedder
) -> list[Similarity]:
    """Blend and typical blend per candidate with examples, best blend first."""
    query = await embedder.embed([message])
    examples = [example for candidate in candidates for example in candidate.examples]
    vectors = await _example_vectors(embedder, query.model, examples)
    message_vector = unit_rows(np.asarray(query.vectors, dtype=float))
    ranked = []
    for candidate in candidates:
        rows = [vectors[e] for e in dict.fromkeys(candidate.examples) if e in vectors]
        if not rows:
            continue
        matrix = np.stack(rows)
        score = float(blend(message_vector, matrix)[0])
        nearest = float((message_vector @ matrix.T).max())
        ranked.append(Similarity(candidate, score, nearest, typical_blend(matrix)))
    return sorted(ranked, key=lambda item: item.score, reverse=True)


def as_scored(
    ranked: list[Similarity], threshold: float, floor: float, router_threshold: float
) -> list[Scored]:
    if not ranked:
        return []
    blends, nearest = np.array([s.score for s in ranked]), np.array([s.nearest for s in ranked])
    confidence = floored(confidences(blends, typicals_of(ranked)), nearest, floor, threshold)[0]
    mapped = calibrated(confidence, threshold, router_threshold)
    return [
        Scored(
            item.candidate,
            float(score),
            "similarity",
            {"similarity": round(item.score, 4), "confidence": round(float(value), 4)},
        )
        for item, value, score in zip(ranked, confidence, mapped, strict=True)
    ]
