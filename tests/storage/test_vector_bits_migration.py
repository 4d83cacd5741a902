"""Migrations 0011 and 0015 on a database that already holds vectors and terms: SQLite's float
vectors move to the one-bit index + exact floats and stay searchable; PostgreSQL moves `tsv` out
of line with its length beside it and its term statistics unchanged."""

from __future__ import annotations

import numpy as np
from sqlalchemy import text

from agentur.knowledge.sqlite_vectors import nearest
from agentur.storage.database import Database
from agentur.storage.migrate import upgrade_database


async def _old_rows(database: Database, vectors: np.ndarray) -> None:
    """Two chunks written the way revision 0005 stored them."""
    async with database.transaction() as session:
        await session.execute(
            text(
                "INSERT INTO mandates (id, name, created_at, updated_at) "
                "VALUES ('m', 'm', CURRENT_TIMESTAMP, CURRENT_TIMESTAMP)"
            )
        )
        await session.execute(
            text(
                "INSERT INTO users (id, email, display_name, is_platform_admin, is_active, "
                "created_at, updated_at) VALUES ('u', 'u@x.test', '', false, true, "
                "CURRENT_TIMESTAMP, CURRENT_TIMESTAMP)"
            )
        )
        await session.execute(
            text(
                "INSERT INTO files (id, mandate_id, owner_id, folder_key, name, scope, "
                "neutralize, size, mime_type, sha256, created_at, updated_at) VALUES "
                "('f', 'm', 'u', 'root', 'f.txt', 'personal', false, 1, 'text/plain', "
                "'x', CURRENT_TIMESTAMP, CURRENT_TIMESTAMP)"
            )
        )
        for i, vector in enumerate(vectors):
            await session.execute(
                text(
                    "INSERT INTO knowledge_chunks (id, file_id, mandate_id, scope, ordinal, "
                    "text, heading_path, content_type, start_offset, end_offset, language, "
                    "embedding_model, embedding_dims) VALUES (:id, 'f', 'm', 'personal', :i, "
                    "'zebra stripes', '[]', 'text', 0, 13, 'en', 'x:model', 384)"
                ),
                {"id": i + 1, "i": i},
            )
            if database.is_sqlite:
                await session.execute(
                    text(
                        "INSERT INTO knowledge_vec_384(rowid, part, embedding) "
                        "VALUES (:id, 'm', :v)"
                    ),
                    {"id": i + 1, "v": vector.astype(np.float32).tobytes()},
                )
            else:
                await session.execute(
                    text(
                        "UPDATE knowledge_chunks SET tsv = to_tsvector('simple', 'zebra stripes')"
                        " WHERE id = :id"
                    ),
                    {"id": i + 1},
                )


async def test_upgrade_keeps_vectors_and_terms(empty_database_url: str) -> None:
    database = Database(empty_database_url)
    rng = np.random.default_rng(3)
    vectors = rng.standard_normal((2, 384))
    vectors /= np.linalg.norm(vectors, axis=1, keepdims=True)
    try:
        await upgrade_database(database.engine, "0005")
        await _old_rows(database, vectors)
        await upgrade_database(database.engine)
        async with database.session() as session:
            if database.is_sqlite:
                for i, vector in enumerate(vectors):
                    found, _ = await nearest(session, vector.tolist(), "x:model", ["m"], [], 1, 4)
                    assert found == [i + 1]
                assert await session.scalar(text("SELECT count(*) FROM knowledge_vectors")) == 2
                gone = await session.scalar(
                    text("SELECT count(*) FROM sqlite_master WHERE name = 'knowledge_vec_384'")
                )
                assert gone == 0
            else:
                storage = await session.scalar(
                    text(
                        "SELECT attstorage::text FROM pg_attribute WHERE attname = 'tsv' "
                        "AND attrelid = 'knowledge_chunks'::regclass"
                    )
                )
                assert storage == "x"  # out of line again (0015): the cheap step reads no tsv
                lengths = await session.execute(text("SELECT tsv_length FROM knowledge_chunks"))
                assert [row[0] for row in lengths] == [2, 2]
                options = await session.scalar(
                    text("SELECT reloptions::text FROM pg_class WHERE relname = 'knowledge_chunks'")
                )
                assert "toast_tuple_target=512" in options
                stats = await session.scalar(
                    text("SELECT df FROM knowledge_term_stats WHERE part = 'm' AND term = 'zebra'")
                )
                assert stats == 2  # the rewrite did not count the terms twice
    finally:
        await database.dispose()
