"""Lexical terms computed in several threads at once (indexing beside searches) come out as
they do one at a time: a Snowball stemmer shared between threads corrupted its word."""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor

from agentur.knowledge.lexical import index_terms, query_terms


def test_index_and_query_terms_are_the_same_in_parallel_threads() -> None:
    texts = [
        f"Die Bergführerinnen erklärten {n} Gletscherspaltenbergungen und Rettungsübungen " * 20
        for n in range(100)
    ]
    serial = [index_terms(text, "de") for text in texts]
    serial_queries = [query_terms(text[:200], "de") for text in texts]
    with ThreadPoolExecutor(8) as pool:
        parallel = list(pool.map(lambda text: index_terms(text, "de"), texts * 4))
        parallel_queries = list(pool.map(lambda text: query_terms(text[:200], "de"), texts * 4))
    assert parallel == serial * 4
    assert parallel_queries == serial_queries * 4
