"""lexical search in two steps on PostgreSQL: narrow chunk rows, term count beside the tsvector

Revision ID: 0015
Revises: 0014

The lexical leg now finds candidates from the GIN index and gives them a cheap score (the IDF
of the words they match, shorter chunks first) before full BM25 reads the tsvectors of the best
few only (knowledge/lexical_postgres.py). The cheap step fetches every candidate's row, so the
rows must be narrow: the tsvector goes back out of line (STORAGE EXTENDED; 0011 had moved it
inline for the old one-step ranking, which read it for every candidate), its length, the BM25
document length, is kept in `tsv_length` beside it, and `toast_tuple_target` 512 moves the
chunk text out of line too (it is read for the hits only). 100k chunks: the heap shrinks from
423 MB to 19 MB and stays in shared buffers. Existing rows are rewritten once (the term
statistics trigger is paused: the terms do not change). SQLite: nothing changes.
"""

from __future__ import annotations

from alembic import op

revision = "0015"
down_revision = "0014"
branch_labels = None
depends_on = None


def upgrade() -> None:
    if op.get_bind().dialect.name != "postgresql":
        return
    op.execute("ALTER TABLE knowledge_chunks ADD COLUMN tsv_length integer")
    op.execute("ALTER TABLE knowledge_chunks ALTER COLUMN tsv SET STORAGE EXTENDED")
    op.execute("ALTER TABLE knowledge_chunks SET (toast_tuple_target = 512)")
    op.execute("ALTER TABLE knowledge_chunks DISABLE TRIGGER knowledge_term_stats_update")
    # A new value is stored with the column's current strategy; the old ones stay as they are.
    op.execute(
        "UPDATE knowledge_chunks SET tsv = tsv || ''::tsvector, tsv_length = length(tsv) "
        "WHERE tsv IS NOT NULL"
    )
    op.execute("ALTER TABLE knowledge_chunks ENABLE TRIGGER knowledge_term_stats_update")


def downgrade() -> None:
    if op.get_bind().dialect.name != "postgresql":
        return
    op.execute("ALTER TABLE knowledge_chunks ALTER COLUMN tsv SET STORAGE MAIN")
    op.execute("ALTER TABLE knowledge_chunks RESET (toast_tuple_target)")
    op.execute("ALTER TABLE knowledge_chunks DROP COLUMN tsv_length")
