"""The store's lexical ranking for texts that are not in the index (yet): the same terms
(`lexical.index_terms` / `query_terms`: folded words plus Snowball stems, prefix terms), the
same term plan (`lexical_plan.make_plan`) and the same BM25 as the PostgreSQL leg (each query
term scores its best matching word), computed in memory over a handful of texts.

The assistant's workspace fallback ranks through this, so there is one lexical engine: a file
ranks the same before and after the store has indexed it.
"""

from __future__ import annotations

import sys
from collections import Counter
from collections.abc import Sequence

from agentur.knowledge.lexical import detect_language, index_terms, query_terms
from agentur.knowledge.lexical_plan import BM25_B, BM25_K1, MAX_EXPANSIONS, idf, make_plan

# Everything is in memory and small: no posting budget narrows the plan.
UNBOUNDED = sys.maxsize


def rank_texts(query: str, texts: Sequence[str], language: str = "en") -> list[float]:
    """BM25 score of each text for `query` (0.0: no query term occurs), in input order.
    `language`: the fallback when a text's or the query's language cannot be told."""
    terms = query_terms(query, detect_language(query, language))
    if not terms or not texts:
        return [0.0] * len(texts)
    documents = [
        Counter(index_terms(text, detect_language(text, language)).split()) for text in texts
    ]
    frequency: Counter[str] = Counter(term for document in documents for term in document)
    expansions = {
        term: sorted(
            (
                (word, df)
                for word, df in frequency.items()
                if word != term and word.startswith(term)
            ),
            key=lambda pair: (-pair[1], pair[0]),
        )[:MAX_EXPANSIONS]
        for term, is_prefix in terms
        if is_prefix
    }
    plan = make_plan(terms, dict(frequency), expansions, UNBOUNDED)
    count = len(documents)
    average = max(sum(sum(d.values()) for d in documents) / count, 1.0)
    scores = []
    for document in documents:
        norm = BM25_K1 * (1 - BM25_B + BM25_B * sum(document.values()) / average)
        score = 0.0
        for group in plan.groups:
            score += max(
                (
                    idf(df, count) * document[word] * (BM25_K1 + 1) / (document[word] + norm)
                    for word, df in group.lexemes.items()
                    if document[word]
                ),
                default=0.0,
            )
        scores.append(score)
    return scores
