"""The keyword router: decides without any model, from configured keywords and the word
overlap with trigger examples, FAQ questions and variants.

Scores are in [0, 1]: a configured keyword hit is strong evidence (0.75, more hits add up to 1);
otherwise the best cosine overlap of content-word stems with any example. The embedding
similarity (see `embedding_router`) is combined with this in `route_message`.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Literal

from agentur.assistant.text_tokens import contains_phrase, stems, words

TargetKind = Literal["faq", "flow", "person", "greeting"]
KEYWORD_HIT = 0.75
EXTRA_KEYWORD = 0.1
# Greetings only count in short messages: "hello, my card was stolen" is not small talk.
GREETING_MAX_WORDS = 4


@dataclass(frozen=True, slots=True)
class Candidate:
    kind: TargetKind
    target: str  # FAQ id, flow id, or "" for person/greeting
    examples: tuple[str, ...]
    keywords: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class Scored:
    candidate: Candidate
    score: float
    via: str  # "keyword", "overlap", "similarity"
    details: dict[str, float] = field(default_factory=dict)
    # Sure enough to act on without asking a model (only a calibrated leg can say so).
    direct: bool = False


def overlap(a: Sequence[str], b: Sequence[str]) -> float:
    """Cosine of two stem sets."""
    left, right = set(a), set(b)
    if not left or not right:
        return 0.0
    return len(left & right) / math.sqrt(len(left) * len(right))


@lru_cache(maxsize=20_000)
def example_stems(example: str) -> tuple[str, ...]:
    return tuple(stems(example))


def keyword_score(message: str, candidate: Candidate, with_overlap: bool = True) -> Scored:
    message_words = words(message)
    if candidate.kind == "greeting" and len(message_words) > GREETING_MAX_WORDS:
        return Scored(candidate, 0.0, "keyword")
    hits = sum(contains_phrase(message_words, keyword) for keyword in candidate.keywords)
    if hits:
        return Scored(candidate, min(1.0, KEYWORD_HIT + EXTRA_KEYWORD * (hits - 1)), "keyword")
    if not with_overlap:
        return Scored(candidate, 0.0, "keyword")
    message_stems = stems(message)
    best = max(
        (overlap(message_stems, example_stems(example)) for example in candidate.examples),
        default=0.0,
    )
    return Scored(candidate, best, "overlap")


def rank_by_keywords(
    message: str, candidates: list[Candidate], with_overlap: bool = True
) -> list[Scored]:
    scored = [keyword_score(message, candidate, with_overlap) for candidate in candidates]
    return sorted(scored, key=lambda item: item.score, reverse=True)
