"""Engine and session factory for both backends.

SQLite runs in WAL mode with foreign keys on and every extension the knowledge store needs
loaded on each connection. PostgreSQL gets the `vector` extension from the first migration.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import AsyncIterator, Iterator
from contextlib import asynccontextmanager, contextmanager
from contextvars import ContextVar
from dataclasses import dataclass
from functools import partial
from typing import Any
from weakref import WeakValueDictionary

from sqlalchemy import event, text
from sqlalchemy.exc import TimeoutError as PoolTimeoutError
from sqlalchemy.ext.asyncio import (
    AsyncConnection,
    AsyncEngine,
    AsyncSession,
    async_sessionmaker,
    create_async_engine,
)
from sqlalchemy.pool import AsyncAdaptedQueuePool, QueuePool, StaticPool

from agentur.config import to_async_url
from agentur.storage.sqlite_driver import sqlean_dbapi
from agentur.storage.unavailable import DatabaseUnreachable

SQLITE_BUSY_TIMEOUT_MS = 10_000
SQLITE_POOL_SIZE = 8
POSTGRES_POOL_SIZE = 10
POSTGRES_MAX_OVERFLOW = 10
_SPARE_CHECKOUT: ContextVar[bool] = ContextVar("spare_checkout", default=False)
# Seconds a checkout of background work may wait in all (`Database.background_work`); None:
# the pool's timeout, as for a request.
_BACKGROUND_WAIT: ContextVar[float | None] = ContextVar("background_wait", default=None)


def checkout_is_spare() -> bool:
    """Whether the pool checkout happening now is `connect_if_idle`'s (pool event listeners
    ask: such a checkout never waits, so it may be a request's second)."""
    return _SPARE_CHECKOUT.get()


def is_sqlite(url: str) -> bool:
    return url.startswith("sqlite")


def _prepare_sqlite_connection(
    connection: Any, busy_timeout_ms: int = SQLITE_BUSY_TIMEOUT_MS
) -> None:
    import sqlite_vec

    sqlite_vec.load(connection)
    connection.execute("PRAGMA foreign_keys=ON")
    # How long a writer waits for SQLite's one write lock; then "database is locked", which
    # the API answers with 503 and `Retry-After` (see agentur.storage.unavailable).
    connection.execute(f"PRAGMA busy_timeout={int(busy_timeout_ms)}")
    # WAL lets readers proceed while one writer commits; NORMAL sync is safe under WAL.
    connection.execute("PRAGMA journal_mode=WAL")
    connection.execute("PRAGMA synchronous=NORMAL")


@asynccontextmanager
async def connect_if_idle(engine: AsyncEngine) -> AsyncIterator[AsyncConnection | None]:
    """A connection of `engine`'s pool when one is idle right now, else None — never a wait.
    Work that holds a connection may add this one for a parallel step: it cannot deadlock the
    pool (nothing waits for it), and under load it is simply not there."""
    pool = engine.sync_engine.pool
    if not isinstance(pool, QueuePool) or pool.checkedout() >= pool.size():
        yield None
        return
    # No other task runs between the check and the checkout's taking the idle connection: the
    # pool hands one out before its first await while it may still overflow (PostgreSQL's
    # default sizing; SQLite never takes a second connection).
    connection = engine.connect()
    token = _SPARE_CHECKOUT.set(True)
    try:
        await connection.start()
    finally:
        _SPARE_CHECKOUT.reset(token)
    try:
        yield connection
    finally:
        await connection.close()


class PatientPool(AsyncAdaptedQueuePool):
    """The pool of both backends (file databases). A request's checkout waits the pool
    timeout, then fails (the API answers 503 and the client retries). Background work (an
    agent run, `Database.background_work`) has no client to retry: its checkout waits again
    while its own longer wait has time left, so a burst delays the work instead of failing it.
    Each retry queues behind the checkouts already waiting."""

    def _do_get(self):  # type: ignore[no-untyped-def]  # SQLAlchemy's signature
        wait = _BACKGROUND_WAIT.get()
        if wait is None:
            return super()._do_get()
        deadline = time.monotonic() + wait
        while True:
            try:
                return super()._do_get()
            except PoolTimeoutError:
                if time.monotonic() >= deadline:
                    raise


@dataclass(frozen=True, slots=True)
class PoolSizing:
    """How many pooled connections a process keeps and how long a checkout waits for one.

    SQLite serializes writers anyway and every connection is a thread of its own: a small
    pool without overflow. PostgreSQL: per worker process — N workers take up to
    N × (size + overflow) of the server's `max_connections` (see the README).
    A request's checkout that waits longer than `timeout_seconds` fails: the API answers
    503. Background work's waits up to `background_wait_seconds` (see `PatientPool`)."""

    size: int | None = None  # None: derived for the backend
    max_overflow: int | None = None
    timeout_seconds: float = 5.0
    # SQLite: how long a write waits for the database's one write lock.
    busy_timeout_seconds: float = SQLITE_BUSY_TIMEOUT_MS / 1000
    background_wait_seconds: float = 120.0

    def engine_options(self, url: str) -> dict[str, Any]:
        sqlite = is_sqlite(url)
        return {
            "pool_size": self.size or (SQLITE_POOL_SIZE if sqlite else POSTGRES_POOL_SIZE),
            "max_overflow": (0 if sqlite else POSTGRES_MAX_OVERFLOW)
            if self.max_overflow is None
            else self.max_overflow,
            "pool_timeout": self.timeout_seconds,
            "poolclass": PatientPool,
        }


def create_engine(url: str, pool: PoolSizing | None = None, **options: Any) -> AsyncEngine:
    url = to_async_url(url)
    memory = is_sqlite(url) and (url.rstrip("/").endswith(":memory:") or "mode=memory" in url)
    if memory:
        # Every new connection would see a different in-memory database.
        options.setdefault("poolclass", StaticPool)
    elif "poolclass" not in options:
        options = (pool or PoolSizing()).engine_options(url) | options
    if is_sqlite(url):
        # A pooled connection stays open: closing the last one makes SQLite checkpoint the
        # WAL on every commit (measured ~17 ms per billed call with NullPool).
        busy_ms = round((pool or PoolSizing()).busy_timeout_seconds * 1000)
        prepare = partial(_prepare_sqlite_connection, busy_timeout_ms=busy_ms)
        return create_async_engine(url, module=sqlean_dbapi(prepare), **options)
    options.setdefault("pool_pre_ping", True)
    engine = create_async_engine(url, **options)
    event.listen(engine.sync_engine, "do_connect", _connect_or_unreachable)
    return engine


def _connect_or_unreachable(dialect: Any, record: Any, cargs: Any, cparams: Any) -> Any:
    """Opens a connection; a socket-level failure (refused, or the Unix socket missing while
    the server restarts) becomes DatabaseUnreachable, which the API answers with 503."""
    try:
        return dialect.connect(*cargs, **cparams)
    except OSError as error:
        raise DatabaseUnreachable(str(error)) from error


class Database:
    """One engine plus its session factory; the unit the rest of the code depends on."""

    def __init__(self, url: str, pool: PoolSizing | None = None, **engine_options: Any) -> None:
        self.url = to_async_url(url)
        self.pool_sizing = pool or PoolSizing()
        self.engine = create_engine(self.url, pool, **engine_options)
        self.sessions = async_sessionmaker(self.engine, expire_on_commit=False)
        # Per-key locks inside this process; alive only while someone holds or waits.
        self._key_locks: WeakValueDictionary[str, asyncio.Lock] = WeakValueDictionary()

    @property
    def is_sqlite(self) -> bool:
        return is_sqlite(self.url)

    @asynccontextmanager
    async def session(self) -> AsyncIterator[AsyncSession]:
        async with self.sessions() as session:
            yield session

    @contextmanager
    def background_work(self) -> Iterator[None]:
        """Inside: this task's connection checkouts wait up to the pool's background wait
        instead of failing after the request timeout (work no client can retry). A task
        started inside inherits it."""
        token = _BACKGROUND_WAIT.set(self.pool_sizing.background_wait_seconds)
        try:
            yield
        finally:
            _BACKGROUND_WAIT.reset(token)

    @asynccontextmanager
    async def transaction(self) -> AsyncIterator[AsyncSession]:
        """A session whose work commits at the end of the block, or rolls back on error."""
        async with self.sessions() as session, session.begin():
            yield session

    @asynccontextmanager
    async def locked(self, key: str) -> AsyncIterator[AsyncSession]:
        """A transaction that holds `key` exclusively across every worker until it ends.

        PostgreSQL: a transaction-level advisory lock (released by commit or rollback, also
        when a worker dies). SQLite serves one process, where an asyncio lock is enough; the
        same lock also spares PostgreSQL the waiters of one worker."""
        lock = self._key_locks.get(key)
        if lock is None:
            lock = self._key_locks[key] = asyncio.Lock()
        async with lock, self.transaction() as session:
            if not self.is_sqlite:
                await session.execute(
                    text("SELECT pg_advisory_xact_lock(hashtextextended(:key, 0))"), {"key": key}
                )
            yield session

    async def dispose(self) -> None:
        await self.engine.dispose()
