"""Knowledge-store retrieval bench. Prints figures, asserts nothing.

    python bench/retrieval.py [--backends sqlite,postgresql] [--skip-quality]
        [--skip-throughput] [--skip-load] [--no-cache] [--search-args "..."]

1. Quality on GermanQuAD (shared/data/germanquad: 474 passages, 2,204 questions): every passage
   is uploaded as a file and indexed through the real pipeline with the default offline model;
   MRR@10 and Recall@5 over passages (chunk hits folded to their file) for the lexical, vector
   and hybrid legs on each backend. Vectors may come from a cache
   (`$TMPDIR/agentur-bench-cache/`, keyed by model and text; the vectors are the model's, so
   quality is unaffected): the indexing time of this step is then printed as cached, never as
   a speed.
2. Indexing throughput, uncached, after a warm-up: long files (GermanQuAD passages, ~1,000
   character chunks) and short files (one sentence each) through the whole pipeline (extract,
   chunk, terms, embed, write; default settings, so embedding runs in the low-priority indexing
   process), against the raw model embedding the very same chunk texts in batches in that same
   process (same priority). Prints both chunks/s and their ratio (target >= 0.9).
3. API latency while a ~1.4 MB document indexes (bench/indexing_load.py, SQLite).
4. Search latency at 10k/100k chunks: bench/search_scale.py, when it is present.

Everything is written below one temp folder, removed at the end (also on errors).
"""

from __future__ import annotations

import argparse
import asyncio
import hashlib
import json
import os
import shlex
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from sqlalchemy import text

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))

from indexing_load import DATA, postgres_url  # noqa: E402

from agentur.ai.providers.local_embedding import (  # noqa: E402
    LocalEmbeddingProvider,
    embed_marked,
)
from agentur.ai.service import AiService  # noqa: E402
from agentur.ai.settings import AiSettings  # noqa: E402
from agentur.config import Settings  # noqa: E402
from agentur.context import RequestContext, Role  # noqa: E402
from agentur.cpu_pool import run_in_pool  # noqa: E402
from agentur.knowledge.lexical import detect_language  # noqa: E402
from agentur.knowledge.settings import KnowledgeSettings  # noqa: E402
from agentur.knowledge.store import KnowledgeStore  # noqa: E402
from agentur.runtime import Runtime  # noqa: E402
from agentur.settings import AllSettings  # noqa: E402
from agentur.storage.blob_store import BlobStore  # noqa: E402
from agentur.storage.database import Database  # noqa: E402
from agentur.storage.models import File, Mandate, Membership, User  # noqa: E402

CACHE = Path(tempfile.gettempdir()) / "agentur-bench-cache"
SETTINGS = KnowledgeSettings()
MODEL = SETTINGS.knowledge_embedding_model.removeprefix("local:")  # the default, on-device
BATCH = SETTINGS.knowledge_embedding_batch


class CachedProvider(LocalEmbeddingProvider):
    """The local provider with a persistent text → vector cache (same name and model id)."""

    def __init__(self, path: Path, enabled: bool) -> None:
        super().__init__(MODEL)
        self.path, self.enabled = path, enabled
        self.cache: dict[str, list[float]] = (
            json.loads(path.read_text()) if enabled and path.exists() else {}
        )
        self.hits = self.misses = 0

    async def embed(self, model, texts):  # noqa: ANN001, ANN201
        keys = [hashlib.sha1(t.encode()).hexdigest() for t in texts]
        missing = [t for t, k in zip(texts, keys, strict=True) if k not in self.cache]
        self.hits += len(texts) - len(missing)
        self.misses += len(missing)
        if missing:
            vectors, _ = await super().embed(model, missing)
            for t, v in zip(missing, vectors, strict=True):
                self.cache[hashlib.sha1(t.encode()).hexdigest()] = v
            if self.misses // 256 != (self.misses - len(missing)) // 256:
                self.save()  # now and then, so an interrupted run keeps what it embedded
        return [self.cache[k] for k in keys], 0

    def save(self) -> None:
        if self.enabled:
            self.path.parent.mkdir(exist_ok=True)
            self.path.write_text(json.dumps(self.cache))


def load_set() -> tuple[list[dict], list[dict], dict[str, str]]:
    docs = [json.loads(line) for line in (DATA / "docs.jsonl").open()]
    queries = [json.loads(line) for line in (DATA / "queries.jsonl").open()]
    qrels = {}
    for line in (DATA / "qrels.jsonl").open():
        row = json.loads(line)
        qrels[row["query_id"]] = row["doc_id"]
    return docs, queries, qrels


async def make_runtime(url: str, data_dir: Path, ai: AiService) -> Runtime:
    await asyncio.to_thread(data_dir.mkdir, parents=True, exist_ok=True)
    settings = Settings(data_dir=data_dir, database_url=url)
    database = Database(settings.resolved_database_url)
    all_settings = AllSettings.from_environment(settings)
    runtime = Runtime(settings, database, BlobStore(settings.blob_dir), ai, all_settings)
    await runtime.migrate()
    return runtime


async def make_tenant(runtime: Runtime) -> RequestContext:
    async with runtime.database.transaction() as session:
        mandate = Mandate(name=f"bench-{os.urandom(3).hex()}")
        user = User(
            email=f"{os.urandom(4).hex()}@bench.test",
            display_name="",
            is_platform_admin=False,
            is_active=True,
        )
        session.add_all([mandate, user])
        await session.flush()
        session.add(Membership(user_id=user.id, mandate_id=mandate.id, role="member"))
    return RequestContext(user_id=user.id, mandate_id=mandate.id, role=Role.member)


async def upload_docs(
    runtime: Runtime, context: RequestContext, docs: list[dict]
) -> dict[str, str]:
    """doc_id → file_id; the passage bytes go to the blob store like any upload."""
    ids = {}
    async with runtime.database.transaction() as session:
        for doc in docs:
            blob = runtime.blobs.put_bytes(doc["text"].encode())
            file = File(
                mandate_id=context.mandate_id,
                owner_id=context.user_id,
                folder_key="root",
                name=f"{doc['doc_id']}.txt",
                scope="personal",
                neutralize=False,
                size=blob.size,
                mime_type="text/plain",
                sha256=blob.sha256,
            )
            session.add(file)
            await session.flush()
            ids[doc["doc_id"]] = file.id
    return ids


def metrics(rankings: list[list[str]], gold: list[str]) -> tuple[float, float]:
    mrr = recall = 0.0
    for ranked, answer in zip(rankings, gold, strict=True):
        if answer in ranked[:10]:
            mrr += 1.0 / (ranked.index(answer) + 1)
        recall += answer in ranked[:5]
    return mrr / len(gold), recall / len(gold)


async def quality(url: str, work: Path, provider: CachedProvider, docs, queries, qrels) -> None:
    runtime = await make_runtime(url, work, AiService([provider], settings=AiSettings()))
    store = KnowledgeStore(runtime, SETTINGS)
    context = await make_tenant(runtime)
    file_ids = await upload_docs(runtime, context, docs)
    doc_of = {v: k for k, v in file_ids.items()}
    provider.hits = provider.misses = 0
    started = time.perf_counter()
    outcomes = await store.worker.run_until_idle()
    seconds = time.perf_counter() - started
    chunks = sum(o.chunks for o in outcomes)
    how = (
        f"{provider.hits} of {chunks} chunk vectors from the cache: {seconds:.1f} s is no speed"
        if provider.hits
        else f"uncached, {seconds:.1f} s = {chunks / seconds:.2f} chunks/s"
    )
    print(f"  indexed {len(outcomes)} files, {chunks} chunks ({how})")
    vectors, _ = await provider.embed(
        provider.models()[0], ["query: " + q["query_text"] for q in queries]
    )
    provider.save()
    gold = [qrels[q["query_id"]] for q in queries]
    for legs, label in (
        (("lexical",), "lexical"),
        (("vector",), "vector"),
        (("lexical", "vector"), "hybrid"),
    ):
        rankings = []
        async with runtime.database.session() as session:
            for query, vector in zip(queries, vectors, strict=True):
                result = await store.search.search(
                    session, query["query_text"], context, limit=40, query_vector=vector, legs=legs
                )
                rankings.append(list(dict.fromkeys(doc_of[h.file_id] for h in result.hits)))
        mrr, recall = metrics(rankings, gold)
        print(f"  {label:8} MRR@10 {mrr:.3f}  Recall@5 {recall:.3f}")
    await runtime.close()


async def throughput(work: Path, label: str, docs: list[dict]) -> None:
    """The whole pipeline vs the raw model on the same chunk texts, both in the worker process."""
    provider = LocalEmbeddingProvider(MODEL)
    nice = SETTINGS.knowledge_index_nice
    runtime = await make_runtime(
        f"sqlite+aiosqlite:///{work / 'tp.db'}", work, AiService([provider], settings=AiSettings())
    )
    store = KnowledgeStore(runtime, SETTINGS)
    context = await make_tenant(runtime)
    # Warm-up: the worker process starts and loads the model; a first small file indexes.
    # Lingua loads its full language models on the first text of several words (~2 s), in
    # each process that detects languages: small files here, large ones in the worker.
    warm_up = "Wie warm ist das Wasser im See heute?"
    await run_in_pool(nice, embed_marked, MODEL, [warm_up, "query: Aufwärmen?"], True)
    await run_in_pool(nice, detect_language, warm_up)
    await upload_docs(runtime, context, [{"doc_id": "warm-up", "text": warm_up}])
    await store.worker.run_until_idle()
    await upload_docs(runtime, context, docs)
    started = time.perf_counter()
    outcomes = await store.worker.run_until_idle()
    pipeline = time.perf_counter() - started
    chunks = sum(o.chunks for o in outcomes)
    async with runtime.database.session() as session:
        rows = await session.execute(
            text("SELECT heading_path, text FROM knowledge_chunks ORDER BY file_id, ordinal")
        )
        texts = [
            (" > ".join(json.loads(h) if isinstance(h, str) else h) + "\n\n" + t).lstrip()
            for h, t in rows
        ][1:]  # without the warm-up file's chunk
    await runtime.close()
    started = time.perf_counter()
    for start in range(0, len(texts), BATCH):
        await run_in_pool(nice, embed_marked, MODEL, texts[start : start + BATCH], True)
    raw = time.perf_counter() - started
    raw_rate, pipeline_rate = len(texts) / raw, chunks / pipeline
    chars = sum(len(t) for t in texts) / max(1, len(texts))
    print(
        f"  {label}: {len(docs)} files, {chunks} chunks of {chars:.0f} chars on average; "
        f"raw model {raw_rate:.2f} chunks/s, indexing {pipeline_rate:.2f} chunks/s, "
        f"ratio {pipeline_rate / raw_rate:.2f} (target >= 0.9)"
    )


def search_scale(args: argparse.Namespace) -> None:
    script = ROOT / "bench" / "search_scale.py"
    if not script.exists():
        print("search latency: bench/search_scale.py is not present; not measured here")
        return
    command = [sys.executable, str(script), *shlex.split(args.search_args)]
    print(f"search latency: {' '.join(command[1:])}", flush=True)
    subprocess.run(command, check=False, cwd=ROOT)


async def measure(args: argparse.Namespace, work_root: Path) -> None:
    docs, queries, qrels = load_set()
    print(f"GermanQuAD: {len(docs)} passages, {len(queries)} questions; model local:{MODEL}")
    if not args.skip_quality:
        provider = CachedProvider(CACHE / f"germanquad-{MODEL}.json", not args.no_cache)
        for backend in args.backends.split(","):
            url = f"sqlite+aiosqlite:///{work_root / 'quality.db'}"
            server = None
            if backend == "postgresql":
                url, server = postgres_url(work_root)
            print(f"[{backend}] quality", flush=True)
            try:
                await quality(url, work_root / backend, provider, docs, queries, qrels)
            finally:
                if server is not None:
                    server.cleanup()  # type: ignore[attr-defined]
    if not args.skip_throughput:
        print(f"throughput (uncached, load average {os.getloadavg()[0]:.2f})", flush=True)
        long_docs = [d for d in docs if len(d["text"]) >= 1_000][:40]
        await throughput(work_root / "tp-long", "long files", long_docs)
        short = [{"doc_id": q["query_id"], "text": q["query_text"]} for q in queries[:120]]
        await throughput(work_root / "tp-short", "short files", short)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--backends", default="sqlite,postgresql")
    parser.add_argument("--skip-quality", action="store_true")
    parser.add_argument("--skip-throughput", action="store_true")
    parser.add_argument("--skip-load", action="store_true")
    parser.add_argument("--no-cache", action="store_true", help="Embed every chunk afresh.")
    parser.add_argument("--search-args", default="", help="Arguments for search_scale.py.")
    args = parser.parse_args()
    print(f"load average: {os.getloadavg()}")
    work_root = Path(tempfile.mkdtemp(prefix="agentur-bench-"))
    try:
        asyncio.run(measure(args, work_root))
    finally:
        shutil.rmtree(work_root, ignore_errors=True)
    if not args.skip_load:
        from indexing_load import run_bench

        run_bench(argparse.Namespace(backend="sqlite", samples=500, idle_samples=200, mb=1.4))
    search_scale(args)
    print(f"load average: {os.getloadavg()}")


if __name__ == "__main__":
    main()
