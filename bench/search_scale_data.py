"""The data of bench/search_scale.py: real GermanQuAD text recombined into ~1,000-character
chunks with their index terms, synthetic vectors with file and theme structure (skewed like
real embeddings), tenancy across mandates and owners, written through the real write path;
plus the queries and exact top-10 for recall."""

from __future__ import annotations

import asyncio
import hashlib
import json
import re
import sys
import time
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
from agentur.knowledge.lexical import index_terms  # noqa: E402
from agentur.storage.database import Database  # noqa: E402
from agentur.storage.models import File, Mandate, Membership, User  # noqa: E402

# The shared data folder sits beside the checkout (or beside the worktrees' folder).
DATA = next(
    (p / "shared/data/germanquad" for p in ROOT.parents if (p / "shared/data/germanquad").is_dir()),
    ROOT.parent / "shared/data/germanquad",
)
MODEL = "local:synthetic"
CHUNKS_PER_FILE = 50
WRITERS = 3  # files written at once on PostgreSQL
GROW_STEP = 100_000  # vectors generated per step: 1M at once took ~12 GB of float64 temporaries
MAINTENANCE_WORK_MEM = "2GB"  # for the HNSW build, see build()
CHUNK_CHARS = 1_000
THEMES = 64
# Weight of a direction every vector shares: embedding models put unrelated texts at cosine
# ~0.75, not ~0 as random vectors would be (it matters to quantized indexes).
ANISOTROPY = 3**0.5
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
    """The bench's mandates and users: the ones a kept database already holds, else new."""
    async with database.session() as session:
        rows = (
            await session.execute(
                text(
                    "SELECT u.email, u.id, m.mandate_id FROM users u "
                    "JOIN memberships m ON m.user_id = u.id WHERE u.email LIKE '%@bench.test'"
                )
            )
        ).all()
    if rows:
        users = {email.split("@")[0]: (user, mandate) for email, user, mandate in rows}
        me, mandate = users["me"]
        return Tenancy(RequestContext(user_id=me, mandate_id=mandate, role=Role.member), users)
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
    # A resumed build (`reuse` with `grow`) generated the whole layout already.
    for start in range(len(layout.visible), size, GROW_STEP):
        layout.grow(min(GROW_STEP, size - start))
    written = set(layout.files.values())
    rng = np.random.default_rng(have)
    # Writers in flight: the next file's rows are made while earlier ones are written (the
    # database works on one core, this process on the other); one writer on PostgreSQL
    # took ~50 minutes for 1M chunks.
    writers = asyncio.Semaphore(1 if database.is_sqlite else WRITERS)
    pending: set[asyncio.Task[None]] = set()
    for start in range(0 if written else have, size, CHUNKS_PER_FILE):
        if start // CHUNKS_PER_FILE in written:
            continue
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
        await writers.acquire()
        task = asyncio.create_task(_write_file(database, tenancy, layout, start, rows, writers))
        pending.add(task)
        task.add_done_callback(pending.discard)
        await asyncio.sleep(0)  # let finished writers report before making the next file
    await asyncio.gather(*pending)


async def _write_file(
    database: Database,
    tenancy: Tenancy,
    layout: Layout,
    start: int,
    rows: list[ChunkRow],
    writers: asyncio.Semaphore,
) -> None:
    try:
        number = start // CHUNKS_PER_FILE
        _, owner, scope, _ = SLOTS[number % len(SLOTS)]
        user_id, mandate_id = tenancy.users[owner]
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
                create_index=False,  # built once after the rows, see build()
            )
        layout.files[file.id] = number
    finally:
        writers.release()


async def reuse(
    database: Database, layout: Layout, size: int, partial: bool = False, grow: bool = False
) -> int:
    """A kept database (--data-dir): the chunks it holds, with the layout regenerated (same
    seeds, same steps towards `size`) and its files mapped by name, so nothing is written
    again; 0 when the database must be built. It is reused when it holds `size` chunks and
    its HNSW index, or with `partial` (--measure-kept) whatever an interrupted build left:
    the chunks it never wrote are left out of the searcher's view and of the exact top 10,
    and a missing HNSW index is built (see `index_and_settle`). With `grow` (--resume) an
    interrupted build's layout and files are mapped as with `partial` but 0 is returned, so
    that `build` writes only the files it lacks."""
    have = await _count(database)
    if not have or layout.visible or (have != size and not (partial or grow)):
        return 0
    if grow and have >= size:
        grow = False
    if not database.is_sqlite and not (partial or grow):
        async with database.session() as session:
            index = f"ix_knowledge_chunks_hnsw_{layout.dims}"
            if await session.scalar(text(f"SELECT to_regclass('{index}')")) is None:
                return 0
    async with database.session() as session:
        query = "SELECT id, name FROM files WHERE name LIKE 'synthetic-%'"
        rows = await session.execute(text(query))
        layout.files = {file_id: int(name[10:-4]) for file_id, name in rows}
    for start in range(0, size, GROW_STEP):
        layout.grow(min(GROW_STEP, size - start))
    if grow:
        return 0
    written = set(layout.files.values())
    for number in range(size // CHUNKS_PER_FILE):
        if number not in written:
            first = number * CHUNKS_PER_FILE
            layout.visible[first : first + CHUNKS_PER_FILE] = [False] * CHUNKS_PER_FILE
    return have


async def build(
    database: Database, tenancy: Tenancy, corpus: Corpus, layout: Layout, size: int
) -> tuple[float, float]:
    """Grows the database to `size` chunks. On PostgreSQL the HNSW index is built after the
    rows, as for a bulk import (inserting 100k rows into a live HNSW index took 15 minutes
    here), then VACUUM ANALYZE runs, as autovacuum would have by the time anyone searches, and
    a CHECKPOINT, so that writing the build's dirty pages (~1 GB at 100k) does not fall into the
    timed queries. Returns the seconds spent writing rows and building the HNSW index."""
    started = time.perf_counter()
    have = await _count(database)
    if have and not layout.files:
        raise SystemExit(
            f"search_scale: the kept database holds {have} chunks, not {size}: "
            "remove the data folder or pass the size it was built for"
        )
    if database.is_sqlite:
        await insert_until(database, tenancy, corpus, layout, size)
        return time.perf_counter() - started, 0.0
    async with database.transaction() as session:
        await session.execute(text(f"DROP INDEX IF EXISTS ix_knowledge_chunks_hnsw_{layout.dims}"))
    await insert_until(database, tenancy, corpus, layout, size)
    inserted = time.perf_counter()
    return inserted - started, await index_and_settle(database, layout.dims)


async def index_and_settle(database: Database, dims: int) -> float:
    """PostgreSQL: builds the HNSW index if missing, then VACUUM ANALYZE and CHECKPOINT (see
    `build`); returns the seconds the index took."""
    started = time.perf_counter()
    async with database.transaction() as session:
        # The HNSW graph fits in maintenance_work_mem up to ~1M 384-dim chunks at 2 GB (it
        # builds several times slower once it spills); one parallel worker beside the leader
        # on this 2-core machine.
        await session.execute(text(f"SET LOCAL maintenance_work_mem = '{MAINTENANCE_WORK_MEM}'"))
        await session.execute(text("SET LOCAL max_parallel_maintenance_workers = 1"))
        await ensure_vector_storage(session, dims)
    indexed = time.perf_counter()
    async with database.engine.connect() as connection:
        await connection.execution_options(isolation_level="AUTOCOMMIT")
        await connection.execute(text("VACUUM ANALYZE"))
        await connection.execute(text("CHECKPOINT"))
    return indexed - started


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
