"""ai gateway tables: mandate AI settings, billing ledger, neutralization mappings

Revision ID: 0002
Revises: 0001
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

from agentur.storage.models.base import UtcDateTime

revision = "0002"
down_revision = "0001"
branch_labels = None
depends_on = None


def _timestamps() -> list[sa.Column]:
    return [
        sa.Column("created_at", UtcDateTime(timezone=True), nullable=False),
        sa.Column("updated_at", UtcDateTime(timezone=True), nullable=False),
    ]


def _mandate_fk(table: str) -> sa.ForeignKeyConstraint:
    return sa.ForeignKeyConstraint(
        ["mandate_id"],
        ["mandates.id"],
        name=op.f(f"fk_{table}_mandate_id_mandates"),
        ondelete="CASCADE",
    )


def upgrade() -> None:
    op.create_table(
        "mandate_ai_settings",
        sa.Column("id", sa.String(length=36), nullable=False),
        sa.Column("mandate_id", sa.String(length=36), nullable=False),
        sa.Column("neutralization_policy", sa.String(length=16), nullable=True),
        sa.Column("custom_terms", sa.JSON(), nullable=False),
        sa.Column("allowed_providers", sa.JSON(), nullable=True),
        sa.Column("allowed_models", sa.JSON(), nullable=True),
        sa.Column("allow_unpriced", sa.Boolean(), nullable=True),
        sa.Column("balance_chf", sa.Float(), nullable=True),
        sa.Column("monthly_limit_chf", sa.Float(), nullable=True),
        *_timestamps(),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_mandate_ai_settings")),
        sa.UniqueConstraint("mandate_id", name=op.f("uq_mandate_ai_settings_mandate_id")),
        _mandate_fk("mandate_ai_settings"),
    )
    op.create_table(
        "ai_ledger",
        sa.Column("id", sa.String(length=36), nullable=False),
        sa.Column("mandate_id", sa.String(length=36), nullable=False),
        sa.Column("user_id", sa.String(length=36), nullable=False),
        sa.Column("workflow_id", sa.String(length=36), nullable=True),
        sa.Column("operation", sa.String(length=32), nullable=False),
        sa.Column("model", sa.String(length=200), nullable=False),
        sa.Column("provider", sa.String(length=64), nullable=False),
        sa.Column("input_tokens", sa.Integer(), nullable=False),
        sa.Column("output_tokens", sa.Integer(), nullable=False),
        sa.Column("cached_tokens", sa.Integer(), nullable=False),
        sa.Column("cost_usd", sa.Float(), nullable=False),
        sa.Column("cost_chf", sa.Float(), nullable=False),
        sa.Column("usd_to_chf", sa.Float(), nullable=False),
        sa.Column("created_at", UtcDateTime(timezone=True), nullable=False),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_ai_ledger")),
        _mandate_fk("ai_ledger"),
    )
    op.create_index("ix_ai_ledger_mandate_created", "ai_ledger", ["mandate_id", "created_at"])
    op.create_index("ix_ai_ledger_mandate_workflow", "ai_ledger", ["mandate_id", "workflow_id"])
    op.create_table(
        "neutralization_mappings",
        sa.Column("id", sa.String(length=36), nullable=False),
        sa.Column("mandate_id", sa.String(length=36), nullable=False),
        sa.Column("workflow_id", sa.String(length=36), nullable=False),
        sa.Column("ciphertext", sa.LargeBinary(), nullable=False),
        *_timestamps(),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_neutralization_mappings")),
        sa.UniqueConstraint(
            "mandate_id",
            "workflow_id",
            name=op.f("uq_neutralization_mappings_mandate_id_workflow_id"),
        ),
        _mandate_fk("neutralization_mappings"),
    )


def downgrade() -> None:
    op.drop_table("neutralization_mappings")
    op.drop_index("ix_ai_ledger_mandate_workflow", table_name="ai_ledger")
    op.drop_index("ix_ai_ledger_mandate_created", table_name="ai_ledger")
    op.drop_table("ai_ledger")
    op.drop_table("mandate_ai_settings")
