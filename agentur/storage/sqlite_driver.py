"""An aiosqlite-compatible DB-API module backed by `sqlean.py` instead of the stdlib `sqlite3`.

The stdlib module of the pyenv CPython we run on cannot load extensions, and the knowledge store
needs FTS5 and sqlite-vec. SQLAlchemy's aiosqlite dialect accepts a replacement module, so we hand
it one whose connections come from sqlean and whose exception classes are sqlean's (otherwise
constraint violations would not map to SQLAlchemy's IntegrityError).

Each call into aiosqlite is a round trip to the connection's thread, and SQLAlchemy's adapter
makes four per statement (open a cursor, execute, fetch, close) plus two rollbacks per session;
on a busy machine every trip waits for a scheduler slot. `OneTripConnection` does a statement
in one trip and skips commit/rollback when SQLite has no transaction open (`GET /v1/files`:
22 trips → 5).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from types import SimpleNamespace
from typing import Any, Self

import aiosqlite
import sqlean
from sqlalchemy.dialects.sqlite.aiosqlite import AsyncAdapt_aiosqlite_dbapi

ConnectionHook = Callable[[Any], None]

_EXCEPTIONS = (
    "DatabaseError",
    "Error",
    "IntegrityError",
    "NotSupportedError",
    "OperationalError",
    "ProgrammingError",
)


class OneTripCursor:
    """The part of aiosqlite's cursor SQLAlchemy uses. `execute` runs the statement, fetches
    every row and closes the sqlite3 cursor in one trip; SQLAlchemy's adapter fetches all rows
    at once anyway (we use no server-side cursors)."""

    arraysize = 1

    def __init__(self, connection: OneTripConnection) -> None:
        self._connection = connection
        self._rows: list[Any] = []
        self.description: Any = None
        self.rowcount = -1
        self.lastrowid: int | None = None

    async def __aenter__(self) -> Self:
        return self

    async def __aexit__(self, *error: object) -> None:
        await self.close()

    async def execute(self, sql: str, parameters: Any = ()) -> Self:
        def run() -> tuple[list[Any], Any, int, int | None]:
            cursor = self._connection._conn.cursor()
            try:
                cursor.execute(sql, parameters if parameters is not None else ())
                rows = cursor.fetchall() if cursor.description else []
                return rows, cursor.description, cursor.rowcount, cursor.lastrowid
            finally:
                cursor.close()

        result = await self._connection._execute(run)
        self._rows, self.description, self.rowcount, self.lastrowid = result
        return self

    async def executemany(self, sql: str, parameters: Iterable[Any]) -> Self:
        def run() -> tuple[int, int | None]:
            cursor = self._connection._conn.cursor()
            try:
                cursor.executemany(sql, parameters)
                return cursor.rowcount, cursor.lastrowid
            finally:
                cursor.close()

        self._rows, self.description = [], None
        self.rowcount, self.lastrowid = await self._connection._execute(run)
        return self

    async def fetchall(self) -> Sequence[Any]:
        rows, self._rows = self._rows, []
        return rows

    async def fetchmany(self, size: int | None = None) -> Sequence[Any]:
        size = size or self.arraysize
        rows, self._rows = self._rows[:size], self._rows[size:]
        return rows

    async def fetchone(self) -> Any:
        return self._rows.pop(0) if self._rows else None

    async def close(self) -> None:
        self._rows = []


class OneTripConnection(aiosqlite.Connection):
    def cursor(self) -> OneTripCursor:  # type: ignore[override]
        return OneTripCursor(self)

    # Reading `in_transaction` from the event loop is safe: SQLAlchemy never runs two calls on
    # one connection at once, so the connection's thread is idle here.
    async def commit(self) -> None:
        if self._conn.in_transaction:
            await super().commit()

    async def rollback(self) -> None:
        if self._connection is not None and self._conn.in_transaction:
            await super().rollback()


def _open(database: str, on_connect: ConnectionHook | None, **kwargs: Any) -> Any:
    kwargs.setdefault("check_same_thread", False)
    connection = sqlean.connect(database, **kwargs)
    connection.enable_load_extension(True)
    if on_connect is not None:
        on_connect(connection)
    return connection


def sqlean_dbapi(on_connect: ConnectionHook | None = None) -> AsyncAdapt_aiosqlite_dbapi:
    """The DB-API module to pass as `module=` to `create_async_engine` for SQLite URLs.

    `on_connect` runs on the raw sqlean connection in aiosqlite's thread (load extensions,
    set pragmas)."""

    def connect(database: str, *, iter_chunk_size: int = 64, **kwargs: Any) -> OneTripConnection:
        return OneTripConnection(
            lambda: _open(database, on_connect, **kwargs), iter_chunk_size=iter_chunk_size
        )

    shim = SimpleNamespace(
        connect=connect,
        Connection=aiosqlite.Connection,
        __version__=aiosqlite.__version__,
        sqlite_version=sqlean.sqlite_version,
        sqlite_version_info=sqlean.sqlite_version_info,
        **{name: getattr(sqlean, name) for name in _EXCEPTIONS},
    )
    return AsyncAdapt_aiosqlite_dbapi(shim, sqlean)  # type: ignore[arg-type]
