"""Unique-constraint violations as ConflictError, undone without losing the surrounding work.

Services usually check for a taken name with a query first; this block is for the race the
check cannot see (a concurrent request took the name in between). The block's changes run in a
savepoint, so the violation undoes only them and the caller can decide again (pick the next
free name, answer 409) with the rest of its unit of work intact.

SQLite needs care: Python's sqlite3 driver (and sqlean) opens a transaction only right before
an INSERT/UPDATE/DELETE. A SAVEPOINT issued before that becomes the transaction itself, and
releasing it *commits* — a later failure in the same request could then no longer undo the
change. So on SQLite the real transaction is started explicitly first; like the driver's own
implicit BEGIN, that happens only right before a write.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

from sqlalchemy.exc import IntegrityError
from sqlalchemy.ext.asyncio import AsyncSession

from agentur.errors import ConflictError


@asynccontextmanager
async def unique_change(
    session: AsyncSession, conflict_message: str, *changed_rows: object
) -> AsyncIterator[None]:
    """Make the block's changes inside a savepoint and flush them there.

    The changes must happen *inside* the block: `begin_nested()` flushes pending work first, so
    a row added before it would fail outside the savepoint. Pass the persistent rows the block
    changes as `changed_rows`: a rollback expires them, and an async session cannot lazy-load,
    so they are loaded again before the ConflictError leaves.
    """
    await _begin_sqlite_transaction(session)
    try:
        async with session.begin_nested():
            yield
            await session.flush()
    except IntegrityError as error:
        for row in changed_rows:
            await session.refresh(row)
        raise ConflictError(conflict_message) from error


async def _begin_sqlite_transaction(session: AsyncSession) -> None:
    connection = await session.connection()
    if connection.dialect.name != "sqlite":
        return
    raw = await connection.get_raw_connection()
    if not raw.driver_connection.in_transaction:  # type: ignore[union-attr]
        await connection.exec_driver_sql("BEGIN")
