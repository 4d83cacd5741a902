"""knowledge index progress: chunks embedded of chunks total, and when embedding started

Revision ID: 0008
Revises: 0005
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

from agentur.storage.models.base import UtcDateTime

revision = "0008"
down_revision = "0007"
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("knowledge_file_indexes") as table:
        table.add_column(sa.Column("chunks_total", sa.Integer(), nullable=True))
        table.add_column(sa.Column("chunks_done", sa.Integer(), nullable=True))
        table.add_column(sa.Column("progress_started_at", UtcDateTime(), nullable=True))


def downgrade() -> None:
    with op.batch_alter_table("knowledge_file_indexes") as table:
        table.drop_column("progress_started_at")
        table.drop_column("chunks_done")
        table.drop_column("chunks_total")
