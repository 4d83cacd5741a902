"""connections: per user or per mandate, credentials sealed

Revision ID: 0010
Revises: 0009
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

from agentur.storage.models.base import UtcDateTime

revision = "0010"
down_revision = "0009"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "connections",
        sa.Column("id", sa.String(length=36), nullable=False),
        sa.Column("mandate_id", sa.String(length=36), nullable=False),
        sa.Column("owner_id", sa.String(length=36), nullable=True),
        sa.Column("kind", sa.String(length=32), nullable=False),
        sa.Column("display_name", sa.String(length=200), nullable=False),
        sa.Column("settings_json", sa.Text(), nullable=False),
        sa.Column("sealed_credentials", sa.Text(), nullable=False),
        sa.Column("neutralize", sa.Boolean(), nullable=False),
        sa.Column("status", sa.String(length=16), nullable=False),
        sa.Column("last_error", sa.Text(), nullable=True),
        sa.Column("created_at", UtcDateTime(timezone=True), nullable=False),
        sa.Column("updated_at", UtcDateTime(timezone=True), nullable=False),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_connections")),
        sa.ForeignKeyConstraint(
            ["mandate_id"],
            ["mandates.id"],
            name=op.f("fk_connections_mandate_id_mandates"),
            ondelete="CASCADE",
        ),
        sa.ForeignKeyConstraint(
            ["owner_id"],
            ["users.id"],
            name=op.f("fk_connections_owner_id_users"),
            ondelete="CASCADE",
        ),
    )
    op.create_index("ix_connections_mandate_owner", "connections", ["mandate_id", "owner_id"])


def downgrade() -> None:
    op.drop_index("ix_connections_mandate_owner", table_name="connections")
    op.drop_table("connections")
