"""Migration 0014 on assistants saved before `allowed_origins` took web origins only: the
non-origins go, the origins stay, and the stored definition validates again (a visitor's
conversation parses it)."""

from __future__ import annotations

import json

from sqlalchemy import text

from agentur.assistant.assistant_service import parse_definition
from agentur.storage.database import Database
from agentur.storage.migrate import upgrade_database


async def _assistant(database: Database, assistant_id: str, origins: list[str]) -> None:
    definition = {"name": assistant_id, "allowed_origins": origins}
    async with database.transaction() as session:
        await session.execute(
            text(
                "INSERT INTO assistants (id, mandate_id, name, definition, created_at, "
                "updated_at) VALUES (:id, 'm', :id, :definition, CURRENT_TIMESTAMP, "
                "CURRENT_TIMESTAMP)"
            ),
            {"id": assistant_id, "definition": json.dumps(definition)},
        )


async def test_non_origins_are_removed_and_origins_kept(empty_database_url: str) -> None:
    database = Database(empty_database_url)
    try:
        await upgrade_database(database.engine, "0013")
        async with database.transaction() as session:
            await session.execute(
                text(
                    "INSERT INTO mandates (id, name, created_at, updated_at) "
                    "VALUES ('m', 'm', CURRENT_TIMESTAMP, CURRENT_TIMESTAMP)"
                )
            )
        await _assistant(
            database,
            "shop",
            [
                "null",
                "*",
                " https://Shop.Example/ ",
                "https://shop.example/cart",
                "http://[::1]:8080",
            ],
        )
        await _assistant(database, "clean", ["https://clean.example"])
        await upgrade_database(database.engine)
        async with database.session() as session:
            rows = dict(
                (await session.execute(text("SELECT id, definition FROM assistants"))).all()
            )
    finally:
        await database.dispose()
    stored = {
        key: value if isinstance(value, dict) else json.loads(value) for key, value in rows.items()
    }
    assert stored["shop"]["allowed_origins"] == ["https://Shop.Example/", "http://[::1]:8080"]
    assert stored["shop"]["name"] == "shop"  # the rest of the definition is untouched
    assert stored["clean"]["allowed_origins"] == ["https://clean.example"]
    for definition in stored.values():
        parse_definition(definition)  # validates again
