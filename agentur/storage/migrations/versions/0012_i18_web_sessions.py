"""web sessions: a browser's cookie session and the API keys signed in with it

Revision ID: 0012
Revises: 0011
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

from agentur.storage.models.base import UtcDateTime

revision = "0012"
down_revision = "0011"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "web_sessions",
        sa.Column("id", sa.String(length=36), nullable=False),
        sa.Column("token_hash", sa.String(length=64), nullable=False),
        sa.Column("active_mandate_id", sa.String(length=36), nullable=False),
        sa.Column("created_at", UtcDateTime(timezone=True), nullable=False),
        sa.Column("expires_at", UtcDateTime(timezone=True), nullable=False),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_web_sessions")),
        sa.UniqueConstraint("token_hash", name=op.f("uq_web_sessions_token_hash")),
        sa.ForeignKeyConstraint(
            ["active_mandate_id"],
            ["mandates.id"],
            name=op.f("fk_web_sessions_active_mandate_id_mandates"),
            ondelete="CASCADE",
        ),
    )
    op.create_index(
        op.f("ix_web_sessions_active_mandate_id"), "web_sessions", ["active_mandate_id"]
    )
    op.create_index(op.f("ix_web_sessions_expires_at"), "web_sessions", ["expires_at"])
    op.create_table(
        "web_session_keys",
        sa.Column("id", sa.String(length=36), nullable=False),
        sa.Column("session_id", sa.String(length=36), nullable=False),
        sa.Column("api_key_id", sa.String(length=36), nullable=False),
        sa.Column("mandate_id", sa.String(length=36), nullable=False),
        sa.Column("created_at", UtcDateTime(timezone=True), nullable=False),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_web_session_keys")),
        sa.UniqueConstraint(
            "session_id", "mandate_id", name=op.f("uq_web_session_keys_session_id_mandate_id")
        ),
        sa.ForeignKeyConstraint(
            ["session_id"],
            ["web_sessions.id"],
            name=op.f("fk_web_session_keys_session_id_web_sessions"),
            ondelete="CASCADE",
        ),
        sa.ForeignKeyConstraint(
            ["api_key_id"],
            ["api_keys.id"],
            name=op.f("fk_web_session_keys_api_key_id_api_keys"),
            ondelete="CASCADE",
        ),
        sa.ForeignKeyConstraint(
            ["mandate_id"],
            ["mandates.id"],
            name=op.f("fk_web_session_keys_mandate_id_mandates"),
            ondelete="CASCADE",
        ),
    )
    op.create_index(op.f("ix_web_session_keys_session_id"), "web_session_keys", ["session_id"])
    op.create_index(op.f("ix_web_session_keys_api_key_id"), "web_session_keys", ["api_key_id"])


def downgrade() -> None:
    op.drop_table("web_session_keys")
    op.drop_table("web_sessions")
