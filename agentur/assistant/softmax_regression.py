"""Multinomial logistic regression fitted with Adam from zero weights (numpy; features dense or
scipy-sparse): deterministic for the same inputs, and fast enough for a few thousand examples
that a router head is refitted in seconds whenever an assistant's examples change."""

from __future__ import annotations

from typing import Any

import numpy as np

STEP_SIZE = 0.05


def softmax(logits: np.ndarray) -> np.ndarray:
    shifted = np.exp(logits - logits.max(axis=1, keepdims=True))
    return shifted / shifted.sum(axis=1, keepdims=True)


def fit_softmax(
    features: Any, labels: np.ndarray, classes: int, l2: float, steps: int
) -> tuple[np.ndarray, np.ndarray]:
    """(weights features × classes, bias) minimizing cross-entropy + `l2`/2·|weights|²."""
    transposed = features.T
    targets = np.eye(classes, dtype=np.float32)[labels]
    weights = np.zeros((features.shape[1], classes), dtype=np.float32)
    bias = np.zeros(classes, dtype=np.float32)
    first, second = np.zeros_like(weights), np.zeros_like(weights)
    for step in range(1, steps + 1):
        error = softmax(np.asarray(features @ weights) + bias) - targets
        gradient = np.asarray(transposed @ error) / features.shape[0] + l2 * weights
        first = 0.9 * first + 0.1 * gradient
        second = 0.999 * second + 0.001 * gradient**2
        corrected = first / (1 - 0.9**step)
        weights -= STEP_SIZE * corrected / (np.sqrt(second / (1 - 0.999**step)) + 1e-8)
        bias -= STEP_SIZE * error.mean(axis=0)
    return weights, bias
