"""knowledge tables

Revision ID: 0004
Revises: 0003

Vectors: SQLite gets one sqlite-vec table per dimension (`knowledge_vec_<dims>`; the default
model's 384 here, others on first use); PostgreSQL keeps an untyped `vector` column with a
partial HNSW index per dimension (384 and 1536 here, others on first use).
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

from agentur.storage.models.base import UtcDateTime

revision = "0004"
down_revision = "0003"
branch_labels = None
depends_on = None

DEFAULT_DIMENSIONS = (384, 1536)


def _stamps() -> list[sa.Column]:
    return [
        sa.Column("id", sa.String(length=36), nullable=False),
        sa.Column("created_at", UtcDateTime(timezone=True), nullable=False),
        sa.Column("updated_at", UtcDateTime(timezone=True), nullable=False),
    ]


def _mandate_fk(table: str) -> sa.ForeignKeyConstraint:
    return sa.ForeignKeyConstraint(
        ["mandate_id"], ["mandates.id"], name=f"fk_{table}_mandate_id_mandates", ondelete="CASCADE"
    )


def upgrade() -> None:
    dialect = op.get_bind().dialect.name
    op.create_table(
        "knowledge_file_indexes",
        sa.Column("file_id", sa.String(36), nullable=False),
        sa.Column("mandate_id", sa.String(36), nullable=False),
        sa.Column("owner_id", sa.String(36), nullable=False),
        sa.Column("feature_instance_id", sa.String(36), nullable=True),
        sa.Column("scope", sa.String(32), nullable=False),
        sa.Column("status", sa.String(16), nullable=False),
        sa.Column("error", sa.Text(), nullable=True),
        sa.Column("content_sha256", sa.String(64), nullable=True),
        sa.Column("config_key", sa.String(200), nullable=True),
        sa.Column("embedding_model", sa.String(200), nullable=True),
        sa.Column("embedding_error", sa.Text(), nullable=True),
        sa.Column("is_neutralized", sa.Boolean(), nullable=False),
        sa.Column("neutralization_status", sa.String(16), nullable=False),
        sa.Column("format", sa.String(32), nullable=True),
        sa.Column("structure", sa.JSON(), nullable=True),
        sa.Column("summary", sa.JSON(), nullable=True),
        sa.Column("extracted_text", sa.Text(), nullable=True),
        sa.Column("chunk_count", sa.Integer(), nullable=False),
        sa.Column("claimed_by", sa.String(64), nullable=True),
        sa.Column("claimed_at", UtcDateTime(timezone=True), nullable=True),
        sa.Column("indexed_at", UtcDateTime(timezone=True), nullable=True),
        *_stamps(),
        sa.ForeignKeyConstraint(
            ["file_id"],
            ["files.id"],
            name="fk_knowledge_file_indexes_file_id_files",
            ondelete="CASCADE",
        ),
        _mandate_fk("knowledge_file_indexes"),
        sa.PrimaryKeyConstraint("id", name="pk_knowledge_file_indexes"),
        sa.UniqueConstraint("file_id", name="uq_knowledge_file_indexes_file_id"),
    )
    op.create_index(
        "ix_knowledge_file_indexes_mandate_id", "knowledge_file_indexes", ["mandate_id"]
    )
    op.create_index("ix_knowledge_file_indexes_status", "knowledge_file_indexes", ["status"])

    chunk_id = sa.BigInteger().with_variant(sa.Integer(), "sqlite")
    op.create_table(
        "knowledge_chunks",
        sa.Column("id", chunk_id, autoincrement=True, nullable=False),
        sa.Column("file_id", sa.String(36), nullable=False),
        sa.Column("mandate_id", sa.String(36), nullable=False),
        sa.Column("scope", sa.String(32), nullable=False),
        sa.Column("ordinal", sa.Integer(), nullable=False),
        sa.Column("text", sa.Text(), nullable=False),
        sa.Column("heading_path", sa.JSON(), nullable=False),
        sa.Column("content_type", sa.String(16), nullable=False),
        sa.Column("page", sa.Integer(), nullable=True),
        sa.Column("start_offset", sa.Integer(), nullable=False),
        sa.Column("end_offset", sa.Integer(), nullable=False),
        sa.Column("language", sa.String(16), nullable=False),
        sa.Column("embedding_model", sa.String(200), nullable=True),
        sa.Column("embedding_dims", sa.Integer(), nullable=True),
        sa.ForeignKeyConstraint(
            ["file_id"], ["files.id"], name="fk_knowledge_chunks_file_id_files", ondelete="CASCADE"
        ),
        sa.PrimaryKeyConstraint("id", name="pk_knowledge_chunks"),
        sa.UniqueConstraint("file_id", "ordinal", name="uq_knowledge_chunks_file_id_ordinal"),
        # Never reuse a chunk id: FTS5/vec0 rows of deleted chunks are swept later by id.
        sqlite_autoincrement=True,
    )
    op.create_index("ix_knowledge_chunks_file_id", "knowledge_chunks", ["file_id"])
    op.create_index(
        "ix_knowledge_chunks_mandate_scope", "knowledge_chunks", ["mandate_id", "scope"]
    )

    op.create_table(
        "knowledge_round_memories",
        sa.Column("mandate_id", sa.String(36), nullable=False),
        sa.Column("user_id", sa.String(36), nullable=False),
        sa.Column("workflow_id", sa.String(36), nullable=False),
        sa.Column("run_id", sa.String(36), nullable=False),
        sa.Column("round_index", sa.Integer(), nullable=False),
        sa.Column("file_refs", sa.JSON(), nullable=False),
        sa.Column("tool_results", sa.JSON(), nullable=False),
        sa.Column("decisions", sa.Text(), nullable=False),
        sa.Column("text", sa.Text(), nullable=False),
        sa.Column("embedding", sa.JSON(), nullable=True),
        sa.Column("embedding_model", sa.String(200), nullable=True),
        *_stamps(),
        _mandate_fk("knowledge_round_memories"),
        sa.PrimaryKeyConstraint("id", name="pk_knowledge_round_memories"),
        sa.UniqueConstraint(
            "run_id", "round_index", name="uq_knowledge_round_memories_run_id_round_index"
        ),
    )
    for column in ("mandate_id", "user_id", "workflow_id"):
        op.create_index(
            f"ix_knowledge_round_memories_{column}", "knowledge_round_memories", [column]
        )

    op.create_table(
        "knowledge_workflow_memories",
        sa.Column("mandate_id", sa.String(36), nullable=False),
        sa.Column("workflow_id", sa.String(36), nullable=False),
        sa.Column("key", sa.String(200), nullable=False),
        sa.Column("value", sa.Text(), nullable=False),
        sa.Column("kind", sa.String(16), nullable=False),
        sa.Column("embedding", sa.JSON(), nullable=True),
        sa.Column("embedding_model", sa.String(200), nullable=True),
        *_stamps(),
        _mandate_fk("knowledge_workflow_memories"),
        sa.PrimaryKeyConstraint("id", name="pk_knowledge_workflow_memories"),
        sa.UniqueConstraint(
            "mandate_id",
            "workflow_id",
            "key",
            name="uq_knowledge_workflow_memories_mandate_id_workflow_id_key",
        ),
    )
    for column in ("mandate_id", "workflow_id"):
        op.create_index(
            f"ix_knowledge_workflow_memories_{column}", "knowledge_workflow_memories", [column]
        )

    if dialect == "sqlite":
        # Contentless: the chunk text lives in knowledge_chunks; FTS holds folded + stemmed terms.
        op.execute(
            "CREATE VIRTUAL TABLE knowledge_chunks_fts USING fts5("
            "terms, content='', contentless_delete=1, "
            "tokenize='unicode61 remove_diacritics 2')"
        )
        # Document frequencies for the lexical plan (lexical_plan.py), read from the index.
        op.execute(
            "CREATE VIRTUAL TABLE knowledge_chunks_vocab USING fts5vocab(knowledge_chunks_fts, row)"
        )
        op.execute(
            "CREATE VIRTUAL TABLE IF NOT EXISTS knowledge_vec_384 USING vec0("
            "part text partition key, embedding float[384] distance_metric=cosine)"
        )
    elif dialect == "postgresql":
        op.execute("ALTER TABLE knowledge_chunks ADD COLUMN tsv tsvector")
        op.execute("ALTER TABLE knowledge_chunks ADD COLUMN embedding vector")
        op.execute("CREATE INDEX ix_knowledge_chunks_tsv ON knowledge_chunks USING gin (tsv)")
        _create_term_stats()
        for dims in DEFAULT_DIMENSIONS:
            op.execute(
                f"CREATE INDEX IF NOT EXISTS ix_knowledge_chunks_hnsw_{dims} ON knowledge_chunks "
                f"USING hnsw ((embedding::vector({dims})) vector_cosine_ops) "
                f"WHERE embedding_dims = {dims}"
            )


# BM25 statistics per partition (the mandate, or `global` for global files): df per word, and
# under the word '' the number of chunks (df) and their summed lengths (total). A statement
# trigger keeps them, so every path that writes or deletes chunks (cascades too) is counted;
# rows are locked in (part, term) order, so concurrent indexers wait but never deadlock.
_STATS_DELTA = """
    INSERT INTO knowledge_term_stats AS s (part, term, df, total)
    SELECT part, term, sum(df) * {sign}, sum(total) * {sign} FROM (
        SELECT CASE WHEN r.scope = 'global' THEN 'global' ELSE r.mandate_id END AS part,
               u.lexeme AS term, 1 AS df, 0 AS total
        FROM {rows} AS r, unnest(r.tsv) AS u
        UNION ALL
        SELECT CASE WHEN r.scope = 'global' THEN 'global' ELSE r.mandate_id END,
               '', 1, length(r.tsv)
        FROM {rows} AS r WHERE r.tsv IS NOT NULL
    ) AS changes GROUP BY part, term ORDER BY part, term
    ON CONFLICT (part, term) DO UPDATE
    SET df = s.df + EXCLUDED.df, total = s.total + EXCLUDED.total;
"""


def _create_term_stats() -> None:
    op.execute(
        "CREATE TABLE knowledge_term_stats (part varchar(36) NOT NULL, "
        'term text COLLATE "C" NOT NULL, df bigint NOT NULL, total bigint NOT NULL, '
        "CONSTRAINT pk_knowledge_term_stats PRIMARY KEY (part, term))"
    )
    for operation, old, new in (
        ("INSERT", None, "new_rows"),
        ("UPDATE", "old_rows", "new_rows"),
        ("DELETE", "old_rows", None),
    ):
        body = ""
        if old:
            body += _STATS_DELTA.format(sign=-1, rows=old)
        if new:
            body += _STATS_DELTA.format(sign=1, rows=new)
        name = f"knowledge_term_stats_{operation.lower()}"
        op.execute(
            f"CREATE FUNCTION {name}() RETURNS trigger LANGUAGE plpgsql AS $$\n"
            f"BEGIN\n{body}\nRETURN NULL;\nEND\n$$"
        )
        tables = " ".join(
            f"{kind} TABLE AS {alias}"
            for kind, alias in (("OLD", old), ("NEW", new))
            if alias is not None
        )
        op.execute(
            f"CREATE TRIGGER {name} AFTER {operation} ON knowledge_chunks "
            f"REFERENCING {tables} FOR EACH STATEMENT EXECUTE FUNCTION {name}()"
        )


def downgrade() -> None:
    if op.get_bind().dialect.name == "postgresql":
        for operation in ("insert", "update", "delete"):
            op.execute(
                f"DROP TRIGGER IF EXISTS knowledge_term_stats_{operation} ON knowledge_chunks"
            )
            op.execute(f"DROP FUNCTION IF EXISTS knowledge_term_stats_{operation}()")
        op.execute("DROP TABLE IF EXISTS knowledge_term_stats")
    if op.get_bind().dialect.name == "sqlite":
        op.execute("DROP TABLE IF EXISTS knowledge_chunks_vocab")
        op.execute("DROP TABLE IF EXISTS knowledge_chunks_fts")
        tables = op.get_bind().execute(
            sa.text("SELECT name FROM sqlite_master WHERE name LIKE 'knowledge_vec_%'")
        )
        for (name,) in list(tables):
            if name.count("_") == 2:
                op.execute(f"DROP TABLE IF EXISTS {name}")
    op.drop_table("knowledge_workflow_memories")
    op.drop_table("knowledge_round_memories")
    op.drop_table("knowledge_chunks")
    op.drop_table("knowledge_file_indexes")
