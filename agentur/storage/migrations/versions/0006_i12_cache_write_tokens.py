"""ai_ledger.cache_write_tokens: input tokens written to a provider's prompt cache

Revision ID: 0006
Revises: 0005
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0006"
down_revision = "0005"
branch_labels = None
depends_on = None


def upgrade() -> None:
    # Rows written before this column knew no cache writes: 0 is their true count.
    with op.batch_alter_table("ai_ledger") as batch:
        batch.add_column(
            sa.Column("cache_write_tokens", sa.Integer(), nullable=False, server_default="0")
        )


def downgrade() -> None:
    with op.batch_alter_table("ai_ledger") as batch:
        batch.drop_column("cache_write_tokens")
