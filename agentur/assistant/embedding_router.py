"""Similarity leg of the model-free router (beyond the keywords): a classifier over the
embeddings and character n-grams of trigger examples and FAQ variants plus a shipped
background class, with an out-of-scope threshold calibrated from those examples for the
embedding model in use (see `intent_head.py`; figures in bench/intent_routing.py).

The router embeds with one pinned model (`AGENTUR_ASSISTANT_ROUTER_EMBEDDING_MODEL`, by default
the on-device `local` provider's), never with whatever the gateway would rank first: adding an
OpenAI key must not silently move visitor messages to another model. The calibration is
refitted per model anyway, so pinning another one is safe.

Example vectors are cached per (model, text) and fitted heads per (model, examples) in the
process, so a turn embeds only the message once an assistant's examples were seen; fitting
runs off the event loop.
"""

from __future__ import annotations

import asyncio
from collections import OrderedDict
from dataclasses import dataclass
from typing import Protocol

import numpy as np

from agentur.ai.model_spec import Capability
from agentur.ai.providers.base import ProviderError
from agentur.ai.providers.local_embedding import PROVIDER_NAME, QUERY_MARKER
from agentur.ai.service import AiService
from agentur.assistant.intent_head import (
    Calibrated,
    Negatives,
    background_texts,
    document_questions,
    fit,
)
from agentur.assistant.keyword_router import Candidate, Scored
from agentur.context import RequestContext

CACHE_SIZE = 20_000
HEAD_CACHE_SIZE = 64
# Keeps every candidate strictly below the router threshold when the background class wins.
BELOW = 0.999


@dataclass(frozen=True, slots=True)
class Vectors:
    model: str
    vectors: list[list[float]]


class Embedder(Protocol):
    async def embed(self, texts: list[str]) -> Vectors: ...


@dataclass
class GatewayEmbedder:
    """Embeddings through the AI gateway (billing and neutralization happen there) with the
    pinned model: `provider:name`, or a provider name alone for its first embedding model."""

    ai: AiService
    context: RequestContext
    model: str = PROVIDER_NAME

    def model_id(self) -> str:
        if ":" in self.model:
            return self.model
        for spec in self.ai.models():
            if spec.provider == self.model and Capability.embeddings in spec.capabilities:
                return spec.id
        raise ProviderError(
            f"the router's embedding provider {self.model!r} has no embedding model",
            provider=self.model,
        )

    async def embed(self, texts: list[str]) -> Vectors:
        model = self.model_id()
        # Messages and examples are compared with each other: E5 wants both as queries.
        local = model.startswith(f"{PROVIDER_NAME}:")
        sent = [QUERY_MARKER + text for text in texts] if local else texts
        result = await self.ai.embed(sent, "assistant_router", self.context, model=model)
        return Vectors(result.model, result.vectors)


_vectors: OrderedDict[tuple[str, str], np.ndarray] = OrderedDict()
_heads: OrderedDict[tuple[object, ...], Calibrated] = OrderedDict()


def unit_rows(vectors: np.ndarray) -> np.ndarray:
    norms = np.linalg.norm(vectors, axis=-1, keepdims=True)
    return vectors / np.where(norms == 0, 1.0, norms)


def examples_of(candidates: list[Candidate]) -> tuple[list[str], np.ndarray, int]:
    """Texts, class labels (candidate index; the background is the last class) and classes."""
    texts: list[str] = []
    labels: list[int] = []
    for index, candidate in enumerate(candidates):
        for text in dict.fromkeys(candidate.examples):
            texts.append(text)
            labels.append(index)
    background = background_texts()
    texts += background
    labels += [len(candidates)] * len(background)
    return texts, np.array(labels), len(candidates) + 1


def router_scores(
    probabilities: np.ndarray, fitted: Calibrated, shift: float, floor: float, router: float
) -> np.ndarray:
    """Class probabilities (rows × classes) → router scores of the candidates (background
    dropped): the calibrated threshold (+ `shift`, at least `floor`) lands on the router
    threshold, 0 and 1 stay; rows the background class wins stay below it, order kept."""
    threshold = float(np.clip(max(fitted.threshold + shift, floor), 1e-6, 1 - 1e-6))
    if fitted.background is None:
        background_wins = np.zeros(len(probabilities), dtype=bool)
        candidates = probabilities
    else:
        background_wins = probabilities.argmax(axis=1) == fitted.background
        candidates = np.delete(probabilities, fitted.background, axis=1)
    scores = np.where(
        candidates >= threshold,
        router + (candidates - threshold) / (1 - threshold) * (1 - router),
        candidates / threshold * router,
    )
    return np.where(
        background_wins[:, None], np.minimum(scores, candidates * router * BELOW), scores
    )


def direct_matches(probabilities: np.ndarray, fitted: Calibrated, floor: float) -> np.ndarray:
    """rows × candidates: the row's best candidate where its confidence clears the direct
    threshold (and the floor) and the background does not win; nothing else."""
    candidates = probabilities
    if fitted.background is not None:
        candidates = np.delete(probabilities, fitted.background, axis=1)
    best = candidates.argmax(axis=1)
    rows = np.arange(len(candidates))
    sure = candidates[rows, best] >= max(fitted.direct_threshold, floor)
    if fitted.background is not None:
        sure &= probabilities.argmax(axis=1) != fitted.background
    found = np.zeros(candidates.shape, dtype=bool)
    found[rows, best] = sure
    return found


async def _example_vectors(embedder: Embedder, model: str, texts: list[str]) -> np.ndarray:
    missing = [text for text in dict.fromkeys(texts) if (model, text) not in _vectors]
    if missing:
        fresh = await embedder.embed(missing)
        for text, vector in zip(missing, unit_rows(np.asarray(fresh.vectors)), strict=True):
            _vectors[(fresh.model, text)] = vector
        while len(_vectors) > CACHE_SIZE:
            _vectors.popitem(last=False)
    return np.stack([_vectors[(model, text)] for text in texts])


async def _fitted(
    embedder: Embedder, model: str, candidates: list[Candidate], rates: tuple[float, float]
) -> Calibrated:
    key = (model, rates, *((c.kind, c.target, c.examples) for c in candidates))
    if key in _heads:
        _heads.move_to_end(key)
        return _heads[key]
    texts, labels, classes = examples_of(candidates)
    questions = list(document_questions())
    vectors = await _example_vectors(embedder, model, texts + questions)
    negatives = Negatives(vectors[len(texts) :], questions)
    fitted = await asyncio.to_thread(
        fit, vectors[: len(texts)], texts, labels, classes, classes - 1, *rates, negatives
    )
    _heads[key] = fitted
    while len(_heads) > HEAD_CACHE_SIZE:
        _heads.popitem(last=False)
    return fitted


async def similarity_scores(
    message: str,
    candidates: list[Candidate],
    embedder: Embedder,
    *,
    shift: float,
    floor: float,
    router_threshold: float,
    out_of_scope_rate: float,
    direct_rate: float,
) -> list[Scored]:
    """Router scores of the candidates with examples, best first; `direct` marks a best
    candidate whose confidence clears the calibrated direct threshold."""
    query = await embedder.embed([message])
    fitted = await _fitted(embedder, query.model, candidates, (out_of_scope_rate, direct_rate))
    vector = unit_rows(np.asarray(query.vectors, dtype=float))
    probabilities = fitted.probabilities(vector, [message])
    scores = router_scores(probabilities, fitted, shift, floor, router_threshold)[0]
    direct = direct_matches(probabilities, fitted, floor)[0]
    scored = [
        Scored(
            candidate,
            float(score),
            "similarity",
            {"probability": round(float(p), 4), "threshold": round(fitted.threshold, 4)},
            bool(sure),
        )
        for candidate, score, p, sure in zip(
            candidates, scores, probabilities[0], direct, strict=False
        )
    ]
    return sorted(scored, key=lambda item: item.score, reverse=True)
