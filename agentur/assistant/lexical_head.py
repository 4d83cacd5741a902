"""The router's lexical head: logistic regression over character n-grams (TF-IDF of 1–4-grams
inside word boundaries, accents folded) of the FAQ/flow examples.

Character n-grams need no tokenizer, stemmer or stop list, so they work alike in German,
French, Italian and English, and they match inflections, compounds and typos the examples do
not contain ("Rückerstattung" / "rückerstatten", "adress" / "address"). The embedding head sees
meaning, this one sees surface form; mixed (see `intent_head`) they route better than either
alone — figures in bench/intent_routing.py.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

from agentur.assistant.softmax_regression import fit_softmax, softmax

if TYPE_CHECKING:
    from sklearn.feature_extraction.text import TfidfVectorizer

NGRAMS = (1, 4)
# Checked on BANKING77 training utterances that are no examples (`bench/intent_routing.py
# --dev`): L2 1e-4 beat 1e-3 and 1e-2 (alone: 0.73 vs 0.68 / 0.65 accuracy, first 10 per intent);
# 100 Adam steps are as good as 300.
L2 = 1e-4
STEPS = 100


@dataclass(frozen=True, slots=True)
class LexicalHead:
    vectorizer: TfidfVectorizer
    weights: np.ndarray  # n-grams × classes
    bias: np.ndarray

    def probabilities(self, texts: list[str]) -> np.ndarray:
        features = self.vectorizer.transform(texts).astype(np.float32)
        return softmax(np.asarray(features @ self.weights) + self.bias)


def train_lexical(texts: list[str], labels: np.ndarray, classes: int) -> LexicalHead:
    # Imported on first use: scikit-learn (with SciPy) is ~30% of a worker's start-up CPU, and
    # a restarted worker behind a balancer should take requests as soon as it can.
    from sklearn.feature_extraction.text import TfidfVectorizer

    vectorizer = TfidfVectorizer(
        analyzer="char_wb",
        ngram_range=NGRAMS,
        sublinear_tf=True,
        strip_accents="unicode",
        dtype=np.float32,
    )
    features = vectorizer.fit_transform(texts).tocsr()
    weights, bias = fit_softmax(features, labels, classes, L2, STEPS)
    return LexicalHead(vectorizer, weights, bias)
