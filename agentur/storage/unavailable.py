"""Database errors that mean "not now" rather than "wrong": the database is busy or out of
reach for a while (SQLite's write lock held past the busy timeout, PostgreSQL restarting or
refusing connections). The API answers them with 503 and `Retry-After`, like a saturated
connection pool, instead of 500: the same request succeeds once the database is back."""

from __future__ import annotations

from sqlalchemy.exc import DBAPIError

# SQLite's messages when the busy timeout ran out while another connection held the lock.
_SQLITE_BUSY = ("database is locked", "database table is locked", "database is busy")
# PostgreSQL SQLSTATEs of a server that is going away or not accepting connections yet:
# admin_shutdown, crash_shutdown, cannot_connect_now, too_many_connections.
_POSTGRES_GONE = {"57P01", "57P02", "57P03", "53300"}


class DatabaseUnreachable(ConnectionError):
    """Opening a connection to the database failed at the socket: nothing listens on its port,
    or its Unix socket file is gone while the server restarts (FileNotFoundError otherwise)."""


BUSY = "the database is busy: its write lock stayed taken for the whole busy timeout"
UNREACHABLE = "the database is not reachable right now (restarting or refusing connections)"


def unavailable_reason(error: BaseException) -> str | None:
    """Why the database cannot serve this request right now, or None for any other error."""
    if isinstance(error, ConnectionError):  # refused or reset while connecting
        return UNREACHABLE
    if not isinstance(error, DBAPIError):
        return None
    if error.connection_invalidated:
        return UNREACHABLE
    original = error.orig
    if isinstance(original, ConnectionError):
        return UNREACHABLE
    state = str(getattr(original, "sqlstate", "") or "")
    if state in _POSTGRES_GONE or state.startswith("08"):  # class 08: connection exception
        return UNREACHABLE
    message = str(original).lower()
    if any(message.startswith(busy) for busy in _SQLITE_BUSY):
        return BUSY
    return None
