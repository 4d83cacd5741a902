"""The SQLite driver shim: one trip per statement, yet the DB-API behaviour SQLAlchemy relies
on (rows, rowcount, lastrowid, errors, commit and rollback) is unchanged."""

from __future__ import annotations

from pathlib import Path

import pytest
from sqlalchemy import text
from sqlalchemy.exc import IntegrityError

from agentur.storage.database import Database


@pytest.fixture
async def database(tmp_path: Path):  # type: ignore[no-untyped-def]
    database = Database(f"sqlite+aiosqlite:///{tmp_path / 'driver.db'}")
    async with database.transaction() as session:
        await session.execute(text("CREATE TABLE t (id INTEGER PRIMARY KEY, v TEXT UNIQUE)"))
    yield database
    await database.dispose()


async def _values(database: Database) -> list[str]:
    async with database.session() as session:
        return list((await session.execute(text("SELECT v FROM t ORDER BY id"))).scalars())


async def test_rows_rowcount_and_lastrowid(database: Database) -> None:
    async with database.transaction() as session:
        inserted = await session.execute(text("INSERT INTO t (v) VALUES ('a')"))
        assert inserted.lastrowid == 1
        await session.execute(text("INSERT INTO t (v) VALUES (:v)"), [{"v": "b"}, {"v": "c"}])
        updated = await session.execute(text("UPDATE t SET v = v || '!' WHERE id > 1"))
        assert updated.rowcount == 2
        rows = (await session.execute(text("SELECT id, v FROM t ORDER BY id"))).all()
        assert [tuple(row) for row in rows] == [(1, "a"), (2, "b!"), (3, "c!")]
        assert (await session.execute(text("SELECT v FROM t WHERE id = 9"))).first() is None


async def test_rollback_discards_and_commit_keeps(database: Database) -> None:
    async with database.session() as session:
        await session.execute(text("INSERT INTO t (v) VALUES ('kept')"))
        await session.commit()
        await session.execute(text("INSERT INTO t (v) VALUES ('dropped')"))
        await session.rollback()
    async with database.session() as session:  # closed without commit: rolled back
        await session.execute(text("INSERT INTO t (v) VALUES ('unsaved')"))
    assert await _values(database) == ["kept"]


async def test_errors_keep_their_type_and_the_connection_stays_usable(
    database: Database,
) -> None:
    async with database.session() as session:
        await session.execute(text("INSERT INTO t (v) VALUES ('x')"))
        with pytest.raises(IntegrityError):
            await session.execute(text("INSERT INTO t (v) VALUES ('x')"))
        await session.rollback()
        await session.execute(text("INSERT INTO t (v) VALUES ('y')"))
        await session.commit()
    assert await _values(database) == ["y"]
