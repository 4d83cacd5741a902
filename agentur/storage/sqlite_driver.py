"""An aiosqlite-compatible DB-API module backed by `sqlean.py` instead of the stdlib `sqlite3`.

The stdlib module of the pyenv CPython we run on cannot load extensions, and the knowledge store
needs FTS5 and sqlite-vec. SQLAlchemy's aiosqlite dialect accepts a replacement module, so we hand
it one whose connections come from sqlean and whose exception classes are sqlean's (otherwise
constraint violations would not map to SQLAlchemy's IntegrityError).
"""

from __future__ import annotations

from collections.abc import Callable
from types import SimpleNamespace
from typing import Any

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

    def connect(database: str, *, iter_chunk_size: int = 64, **kwargs: Any) -> aiosqlite.Connection:
        return aiosqlite.Connection(
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
