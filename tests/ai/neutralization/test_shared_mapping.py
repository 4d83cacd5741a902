"""Two workers neutralizing new values of one workflow at the same time end up with one map:
every value kept under its own placeholder, none overwritten by the other worker's save.

On PostgreSQL the workers have an engine each (and so their own in-process locks): only the
database lock keeps them apart. SQLite serves one process: there they share the engine."""

from __future__ import annotations

import asyncio

from agentur.ai.database_gateway_store import DatabaseGatewayStore
from agentur.ai.neutralization.mapping_cipher import MappingCipher
from agentur.ai.neutralization.neutralizer import Neutralizer
from agentur.ai.neutralization.request_gate import RequestGate
from agentur.ai.settings import AiSettings
from agentur.runtime import Runtime
from agentur.storage.database import Database
from tests.conftest import Tenants

VALUES = 24


async def test_concurrent_workers_grow_one_consistent_map(
    runtime: Runtime, tenants: Tenants
) -> None:
    member = await tenants.member()
    cipher = MappingCipher.generated()  # every worker has the same key
    if runtime.database.is_sqlite:
        databases = [runtime.database, runtime.database]
    else:
        databases = [Database(runtime.database.url), Database(runtime.database.url)]
    gates = [
        RequestGate(DatabaseGatewayStore(database, AiSettings(), cipher), Neutralizer())
        for database in databases
    ]
    try:
        placed = await asyncio.gather(
            *(
                gates[i % 2].with_mapping(
                    member.mandate_id,
                    "wf-shared",
                    lambda m, i=i: m.placeholder_for("EMAIL", f"p{i}@example.com"),
                )
                for i in range(VALUES)
            )
        )
        stored = await gates[0].store.load_mapping(member.mandate_id, "wf-shared")
        assert len(stored) == VALUES
        placeholders = [placeholder for _, placeholder in placed]
        assert len(set(placeholders)) == VALUES  # no two values share a placeholder
        for i, placeholder in enumerate(placeholders):
            assert stored.value_of(placeholder) == f"p{i}@example.com"
        # A value already in the map is served by a plain read: the same placeholder again.
        _, again = await gates[1].with_mapping(
            member.mandate_id, "wf-shared", lambda m: m.placeholder_for("EMAIL", "p3@example.com")
        )
        assert again == placeholders[3]
    finally:
        for database in databases:
            if database is not runtime.database:
                await database.dispose()
