"""Migrations from an empty database, on each backend: schema at head, every table present."""

from __future__ import annotations

from sqlalchemy import insert, inspect, text

from agentur.storage.database import create_engine
from agentur.storage.migrate import current_revision, head_revision, upgrade_database
from agentur.storage.models import Base, Mandate


async def _table_names(url: str) -> set[str]:
    engine = create_engine(url)
    try:
        async with engine.connect() as connection:
            return set(await connection.run_sync(lambda sync: inspect(sync).get_table_names()))
    finally:
        await engine.dispose()


async def test_upgrade_from_empty_reaches_head_with_every_table(empty_database_url: str) -> None:
    assert await _table_names(empty_database_url) == set()
    engine = create_engine(empty_database_url)
    try:
        assert await current_revision(engine) is None
        await upgrade_database(engine)
        assert head_revision() is not None
        assert await current_revision(engine) == head_revision()
        async with engine.connect() as connection:
            if engine.dialect.name == "postgresql":
                extension = await connection.scalar(
                    text("SELECT extname FROM pg_extension WHERE extname = 'vector'")
                )
                assert extension == "vector"
            else:
                # The embedded default can load what the knowledge store needs.
                assert await connection.scalar(text("SELECT vec_version()"))
                await connection.execute(text("CREATE VIRTUAL TABLE temp.t USING fts5(body)"))
                assert await connection.scalar(text("PRAGMA journal_mode")) == "wal"
                assert await connection.scalar(text("PRAGMA foreign_keys")) == 1
    finally:
        await engine.dispose()
    tables = await _table_names(empty_database_url)
    assert set(Base.metadata.tables) <= tables
    assert "alembic_version" in tables


async def test_upgrading_twice_changes_nothing(empty_database_url: str) -> None:
    engine = create_engine(empty_database_url)
    try:
        await upgrade_database(engine)
        async with engine.begin() as connection:
            await connection.execute(insert(Mandate).values(name="kept"))
        await upgrade_database(engine)
        assert await current_revision(engine) == head_revision()
        async with engine.connect() as connection:
            names = (await connection.execute(text("SELECT name FROM mandates"))).scalars().all()
        assert names == ["kept"]
    finally:
        await engine.dispose()
