"""lexical search on PostgreSQL reads impact-ordered postings instead of the GIN index

Revision ID: 0018
Revises: 0017

`knowledge_postings` holds one row per (chunk, indexed word): the word's term frequency and the
chunk's BM25 length, keyed by a hash of the chunk's partition (its mandate, or `global`) and
the word, ordered by the word's weight in the chunk (`impact`). The lexical leg reads the
heaviest postings of each query word from this index alone (knowledge/lexical_postgres.py),
where the GIN scan before visited every candidate's table row: at 1M chunks that visit and
the grouping after it were two thirds of a search's time. The GIN index, read by nothing else,
is dropped.

Statement triggers keep the table in step with every insert, delete (cascades too) and update
that changes a chunk's words or partition, as the term statistics' triggers do (0004). Existing
chunks are backfilled here: ~170 postings per 1,000-character chunk, about 1 minute and
1.7 GB per 100k chunks on a 2-core machine. SQLite: nothing changes (FTS5 ranks itself).
"""

from __future__ import annotations

from alembic import op

revision = "0018"
down_revision = "0017"
branch_labels = None
depends_on = None

# The word's BM25 weight in the chunk (k1 1.2, b 0.75) against a fixed reference length of
# 150 indexed words, scaled to a smallint: it orders one word's postings, and the search scores
# the rows it reads with the partition's real average length. Immutable, so a delete finds the
# row an insert wrote.
_IMPACT = """
CREATE FUNCTION knowledge_posting_impact(tf integer, dl integer) RETURNS smallint
LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
    SELECT round(1000.0 * tf * 2.2 / (tf + 1.2 * (0.25 + 0.75 * dl / 150.0)))::smallint
$$
"""
_KEY = """
CREATE FUNCTION knowledge_posting_key(mandate_id text, scope text, lexeme text) RETURNS bigint
LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
    SELECT hashtextextended(
        CASE WHEN scope = 'global' THEN 'global' ELSE mandate_id END || ' ' || lexeme, 0)
$$
"""
# The postings of `rows` (a transition table, or the chunk table for the backfill).
_POSTINGS_OF = """
    SELECT knowledge_posting_key(r.mandate_id, r.scope, u.lexeme) AS term_key,
           knowledge_posting_impact(f.tf, f.dl) AS impact, r.id AS chunk_id, f.tf, f.dl
    FROM {rows} AS r
    CROSS JOIN LATERAL unnest(r.tsv) AS u
    CROSS JOIN LATERAL (
        SELECT least(coalesce(array_length(u.positions, 1), 1), 32767)::smallint AS tf,
               least(length(r.tsv), 32767)::smallint AS dl
    ) AS f
    WHERE r.tsv IS NOT NULL{where}
"""
_ADD = "INSERT INTO knowledge_postings (term_key, impact, chunk_id, tf, dl) " + _POSTINGS_OF + ";"
_REMOVE = (
    """
    DELETE FROM knowledge_postings AS p USING ("""
    + _POSTINGS_OF
    + """) AS d
    WHERE p.term_key = d.term_key AND p.impact = d.impact AND p.chunk_id = d.chunk_id;
"""
)
# An update moves postings only when the chunk's words or partition change (an embedding
# written later does not).
_CHANGED = """ AND EXISTS (
        SELECT 1 FROM {other} AS o WHERE o.id = r.id
          AND (o.tsv, o.mandate_id, o.scope) IS DISTINCT FROM (r.tsv, r.mandate_id, r.scope))"""


def _trigger(operation: str, body: str, tables: str) -> None:
    name = f"knowledge_postings_{operation.lower()}"
    op.execute(
        f"CREATE FUNCTION {name}() RETURNS trigger LANGUAGE plpgsql AS $$\n"
        f"BEGIN\n{body}\nRETURN NULL;\nEND\n$$"
    )
    op.execute(
        f"CREATE TRIGGER {name} AFTER {operation} ON knowledge_chunks "
        f"REFERENCING {tables} FOR EACH STATEMENT EXECUTE FUNCTION {name}()"
    )


def upgrade() -> None:
    if op.get_bind().dialect.name != "postgresql":
        return
    op.execute(_IMPACT)
    op.execute(_KEY)
    op.execute(
        "CREATE TABLE knowledge_postings (term_key bigint NOT NULL, impact smallint NOT NULL, "
        "chunk_id bigint NOT NULL, tf smallint NOT NULL, dl smallint NOT NULL)"
    )
    op.execute("SET LOCAL maintenance_work_mem = '1GB'")
    op.execute(_ADD.format(rows="knowledge_chunks", where=""))
    # One index serves both reads: a word's heaviest postings first (tf and dl read from the
    # index alone), and a delete's exact row.
    op.execute(
        "CREATE INDEX ix_knowledge_postings ON knowledge_postings "
        "(term_key, impact DESC, chunk_id) INCLUDE (tf, dl)"
    )
    _trigger("INSERT", _ADD.format(rows="new_rows", where=""), "NEW TABLE AS new_rows")
    _trigger(
        "UPDATE",
        _REMOVE.format(rows="old_rows", where=_CHANGED.format(other="new_rows"))
        + _ADD.format(rows="new_rows", where=_CHANGED.format(other="old_rows")),
        "OLD TABLE AS old_rows NEW TABLE AS new_rows",
    )
    _trigger("DELETE", _REMOVE.format(rows="old_rows", where=""), "OLD TABLE AS old_rows")
    # Nothing reads the GIN index any more; keeping it cost every chunk write its upkeep.
    op.execute("DROP INDEX IF EXISTS ix_knowledge_chunks_tsv")


def downgrade() -> None:
    if op.get_bind().dialect.name != "postgresql":
        return
    for operation in ("insert", "update", "delete"):
        op.execute(f"DROP TRIGGER IF EXISTS knowledge_postings_{operation} ON knowledge_chunks")
        op.execute(f"DROP FUNCTION IF EXISTS knowledge_postings_{operation}()")
    op.execute("DROP TABLE IF EXISTS knowledge_postings")
    op.execute("DROP FUNCTION IF EXISTS knowledge_posting_key(text, text, text)")
    op.execute("DROP FUNCTION IF EXISTS knowledge_posting_impact(integer, integer)")
    op.execute("CREATE INDEX ix_knowledge_chunks_tsv ON knowledge_chunks USING gin (tsv)")
