"""The similarity leg of the router: blend of nearest example and centroid, confidence from
each candidate's own examples (leave one out) plus margin, and the absolute floor."""

from __future__ import annotations

import numpy as np

from agentur.assistant.embedding_router import (
    Similarity,
    as_scored,
    blend,
    confidences,
    floored,
    typical_blend,
    unit_rows,
)
from agentur.assistant.keyword_router import Candidate

ROUTER = 0.55


def test_blend_mixes_nearest_example_and_centroid() -> None:
    examples = unit_rows(np.array([[1.0, 0.0], [0.0, 1.0]]))
    query = unit_rows(np.array([[1.0, 0.0]]))
    # Nearest example: cosine 1; centroid (45°): cosine 0.7071; even mix.
    assert np.isclose(blend(query, examples)[0], 0.5 * 1.0 + 0.5 * np.sqrt(0.5))


def test_typical_blend_is_leave_one_out_and_needs_two_examples() -> None:
    assert typical_blend(unit_rows(np.array([[1.0, 0.0]]))) is None
    tight = unit_rows(np.array([[1.0, 0.0], [0.99, 0.14]]))
    loose = unit_rows(np.array([[1.0, 0.0], [0.0, 1.0]]))
    assert typical_blend(tight) > 0.98  # each example is close to the other
    assert np.isclose(typical_blend(loose), 0.0)


def test_confidence_keeps_the_winner_and_rewards_a_margin() -> None:
    # Candidate 1 has the best blend but a high typical; it must still rank first.
    scores = np.array([[0.80, 0.85, 0.70]])
    typicals = np.array([0.60, 0.95, 0.60])
    confidence = confidences(scores, typicals)[0]
    assert confidence.argmax() == 1
    assert np.isclose(confidence[1], (0.85 - 0.95) + (0.85 - 0.80))
    clear = confidences(np.array([[0.95, 0.60]]), np.array([0.9, 0.9]))[0]
    unsure = confidences(np.array([[0.95, 0.94]]), np.array([0.9, 0.9]))[0]
    assert clear[0] > unsure[0]


def test_floor_pushes_an_unsure_row_below_the_threshold_in_order() -> None:
    confidence = np.array([[0.30, 0.10]])
    below = floored(confidence, np.array([[0.80, 0.95]]), floor=0.9, threshold=0.0)
    assert below.max() < 0.0 and below.argmax() == 0
    kept = floored(confidence, np.array([[0.91, 0.50]]), floor=0.9, threshold=0.0)
    assert np.array_equal(kept, confidence)


def test_as_scored_accepts_a_close_match_and_rejects_a_vague_one() -> None:
    order = Candidate("flow", "order", ("a", "b"))
    returns = Candidate("faq", "returns", ("c", "d"))
    close = [Similarity(order, 0.97, 0.99, 0.88), Similarity(returns, 0.85, 0.84, 0.93)]
    vague = [Similarity(order, 0.86, 0.85, 0.88), Similarity(returns, 0.84, 0.83, 0.93)]
    accepted = as_scored(close, -0.01, 0.9, ROUTER)
    assert accepted[0].candidate is order and accepted[0].score >= ROUTER
    assert accepted[1].score < accepted[0].score
    # A wide margin alone (few candidates) is not enough without a close example.
    assert all(item.score < ROUTER for item in as_scored(vague, -0.01, 0.9, ROUTER))
