"""Apply Alembic migrations programmatically (`agentur serve`, `agentur db upgrade`, tests)."""

from __future__ import annotations

from pathlib import Path

from alembic import command
from alembic.config import Config
from alembic.runtime.migration import MigrationContext
from alembic.script import ScriptDirectory
from sqlalchemy.ext.asyncio import AsyncEngine

from agentur.config import to_async_url

MIGRATIONS_DIR = Path(__file__).parent / "migrations"


def alembic_config(url: str) -> Config:
    config = Config()
    config.set_main_option("script_location", str(MIGRATIONS_DIR))
    config.set_main_option("sqlalchemy.url", to_async_url(url).replace("%", "%%"))
    return config


async def upgrade_database(engine: AsyncEngine, revision: str = "head") -> None:
    """Bring the schema to `revision` on an existing engine's connection."""
    config = alembic_config(engine.url.render_as_string(hide_password=False))

    def run(connection) -> None:  # type: ignore[no-untyped-def]
        config.attributes["connection"] = connection
        command.upgrade(config, revision)

    async with engine.begin() as connection:
        await connection.run_sync(run)


async def current_revision(engine: AsyncEngine) -> str | None:
    async with engine.connect() as connection:
        return await connection.run_sync(
            lambda sync: MigrationContext.configure(sync).get_current_revision()
        )


def head_revision() -> str | None:
    return ScriptDirectory.from_config(alembic_config("sqlite://")).get_current_head()
