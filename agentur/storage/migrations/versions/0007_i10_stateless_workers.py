"""stateless workers: billing reservations and the shared visitor rate limit

Revision ID: 0006
Revises: 0005
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

from agentur.storage.models.base import UtcDateTime

revision = "0007"
down_revision = "0006"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "ai_reservations",
        sa.Column("id", sa.String(length=36), nullable=False),
        sa.Column("mandate_id", sa.String(length=36), nullable=False),
        sa.Column("amount_chf", sa.Float(), nullable=False),
        sa.Column("expires_at", UtcDateTime(timezone=True), nullable=False),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_ai_reservations")),
        sa.ForeignKeyConstraint(
            ["mandate_id"],
            ["mandates.id"],
            name=op.f("fk_ai_reservations_mandate_id_mandates"),
            ondelete="CASCADE",
        ),
    )
    op.create_index(
        "ix_ai_reservations_mandate_expires", "ai_reservations", ["mandate_id", "expires_at"]
    )
    op.create_table(
        "visitor_rate_windows",
        sa.Column("key_id", sa.String(length=64), nullable=False),
        sa.Column("window", sa.BigInteger(), nullable=False),
        sa.Column("hits", sa.Integer(), nullable=False),
        sa.PrimaryKeyConstraint("key_id", "window", name=op.f("pk_visitor_rate_windows")),
    )


def downgrade() -> None:
    op.drop_table("visitor_rate_windows")
    op.drop_index("ix_ai_reservations_mandate_expires", table_name="ai_reservations")
    op.drop_table("ai_reservations")
