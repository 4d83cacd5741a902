"""Similarity of a visitor message to trigger examples and FAQ variants (beyond S8's keyword
router): cosine between embeddings from the gateway (or a local model in the bench).

Example vectors are cached per (model, text) in the process, so a turn embeds only the
message once an assistant's examples were seen.
"""

from __future__ import annotations

import math
from collections import OrderedDict
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Protocol

from agentur.ai.service import AiService
from agentur.assistant.keyword_router import Candidate, Scored
from agentur.context import RequestContext

CACHE_SIZE = 20_000


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


_cache: OrderedDict[tuple[str, str], list[float]] = OrderedDict()


def cosine(a: Sequence[float], b: Sequence[float]) -> float:
    dot = sum(x * y for x, y in zip(a, b, strict=True))
    norm = math.sqrt(sum(x * x for x in a)) * math.sqrt(sum(y * y for y in b))
    return dot / norm if norm else 0.0


async def _example_vectors(
    embedder: Embedder, model: str, texts: list[str]
) -> dict[str, list[float]]:
    missing = [text for text in dict.fromkeys(texts) if (model, text) not in _cache]
    if missing:
        fresh = await embedder.embed(missing)
        for text, vector in zip(missing, fresh.vectors, strict=True):
            _cache[(fresh.model, text)] = vector
        while len(_cache) > CACHE_SIZE:
            _cache.popitem(last=False)
    return {text: _cache[(model, text)] for text in texts if (model, text) in _cache}


async def rank_by_similarity(
    message: str, candidates: list[Candidate], embedder: Embedder
) -> list[tuple[Candidate, float]]:
    """(candidate, best cosine to any of its examples), best first."""
    query = await embedder.embed([message])
    examples = [example for candidate in candidates for example in candidate.examples]
    vectors = await _example_vectors(embedder, query.model, examples)
    ranked = []
    for candidate in candidates:
        scores = [cosine(query.vectors[0], vectors[e]) for e in candidate.examples if e in vectors]
        ranked.append((candidate, max(scores, default=0.0)))
    return sorted(ranked, key=lambda item: item[1], reverse=True)


def calibrated(cosine_value: float, similarity_threshold: float, router_threshold: float) -> float:
    """Map a cosine onto the router's score scale so that the model-specific similarity
    threshold lands exactly on the router threshold (one decision threshold overall)."""
    span = (1.0 - router_threshold) / max(1e-6, 1.0 - similarity_threshold)
    return max(0.0, min(1.0, router_threshold + (cosine_value - similarity_threshold) * span))


def as_scored(
    ranked: list[tuple[Candidate, float]], similarity_threshold: float, router_threshold: float
) -> list[Scored]:
    return [
        Scored(
            candidate,
            calibrated(value, similarity_threshold, router_threshold),
            "similarity",
            {"cosine": round(value, 4)},
        )
        for candidate, value in ranked
    ]
