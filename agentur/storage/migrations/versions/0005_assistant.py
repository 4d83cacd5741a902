"""assistant tables

Revision ID: 0005
Revises: 0004
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

from agentur.storage.models.base import UtcDateTime

revision = "0005"
down_revision = "0004"
branch_labels = None
depends_on = None

TABLES = (
    "assistant_replays",
    "assistant_decisions",
    "assistant_messages",
    "assistant_conversations",
    "assistant_visitor_keys",
    "assistants",
)


def _common(table: str) -> list[sa.SchemaItem]:
    """Id, timestamps and the tenant column every assistant table has."""
    return [
        sa.Column("id", sa.String(36), primary_key=True),
        sa.Column("created_at", UtcDateTime(timezone=True), nullable=False),
        sa.Column("updated_at", UtcDateTime(timezone=True), nullable=False),
        sa.Column(
            "mandate_id",
            sa.String(36),
            sa.ForeignKey("mandates.id", ondelete="CASCADE", name=f"fk_{table}_mandate_id"),
            nullable=False,
            index=True,
        ),
    ]


def _assistant_fk(table: str) -> sa.Column:
    return sa.Column(
        "assistant_id",
        sa.String(36),
        sa.ForeignKey("assistants.id", ondelete="CASCADE", name=f"fk_{table}_assistant_id"),
        nullable=False,
        index=True,
    )


def upgrade() -> None:
    op.create_table(
        "assistants",
        *_common("assistants"),
        sa.Column("name", sa.String(200), nullable=False),
        sa.Column("definition", sa.JSON(), nullable=False),
        sa.Column("credential_encrypted", sa.Text(), nullable=True),
        sa.Column("labels", sa.JSON(), nullable=True),
    )
    op.create_table(
        "assistant_visitor_keys",
        *_common("assistant_visitor_keys"),
        _assistant_fk("assistant_visitor_keys"),
        sa.Column("lookup_id", sa.String(32), nullable=False, unique=True),
        sa.Column("secret_hash", sa.String(64), nullable=False),
        sa.Column("revoked_at", UtcDateTime(timezone=True), nullable=True),
    )
    op.create_table(
        "assistant_conversations",
        *_common("assistant_conversations"),
        _assistant_fk("assistant_conversations"),
        sa.Column("state", sa.JSON(), nullable=False),
        sa.Column("language", sa.String(8), nullable=False),
        sa.Column("visitor_key_id", sa.String(36), nullable=True),
        sa.Column("token_hash", sa.String(64), nullable=True),
    )
    op.create_table(
        "assistant_messages",
        *_common("assistant_messages"),
        sa.Column(
            "conversation_id",
            sa.String(36),
            sa.ForeignKey(
                "assistant_conversations.id",
                ondelete="CASCADE",
                name="fk_assistant_messages_conversation_id",
            ),
            nullable=False,
            index=True,
        ),
        sa.Column("sequence", sa.Integer(), nullable=False),
        sa.Column("role", sa.String(16), nullable=False),
        sa.Column("text", sa.Text(), nullable=False),
        sa.Column("data", sa.JSON(), nullable=True),
    )
    op.create_table(
        "assistant_decisions",
        *_common("assistant_decisions"),
        _assistant_fk("assistant_decisions"),
        sa.Column("conversation_id", sa.String(36), nullable=True, index=True),
        sa.Column("replay_id", sa.String(36), nullable=True, index=True),
        sa.Column("mode", sa.String(16), nullable=False),
        sa.Column("message", sa.Text(), nullable=False),
        sa.Column("decision", sa.String(300), nullable=False),
        sa.Column("answers", sa.JSON(), nullable=True),
        sa.Column("acted", sa.Boolean(), nullable=False),
    )
    op.create_table(
        "assistant_replays",
        *_common("assistant_replays"),
        _assistant_fk("assistant_replays"),
        sa.Column("total", sa.Integer(), nullable=False),
        sa.Column("changed", sa.Integer(), nullable=False),
        sa.Column("mismatched", sa.Integer(), nullable=False),
        sa.Column("results", sa.JSON(), nullable=False),
    )


def downgrade() -> None:
    for table in TABLES:
        op.drop_table(table)
