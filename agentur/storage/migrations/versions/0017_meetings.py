"""meetings: live meeting sessions and their operator directives

Revision ID: 0017
Revises: 0016
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

from agentur.storage.models.base import UtcDateTime

revision = "0017"
down_revision = "0016"
branch_labels = None
depends_on = None


def _foreign_key(table: str, column: str, target: str) -> sa.ForeignKeyConstraint:
    return sa.ForeignKeyConstraint(
        [column],
        [f"{target}.id"],
        name=op.f(f"fk_{table}_{column}_{target}"),
        ondelete="CASCADE",
    )


def upgrade() -> None:
    op.create_table(
        "meeting_sessions",
        sa.Column("id", sa.String(length=36), nullable=False),
        sa.Column("mandate_id", sa.String(length=36), nullable=False),
        sa.Column("owner_id", sa.String(length=36), nullable=False),
        sa.Column("workflow_id", sa.String(length=36), nullable=False),
        sa.Column("title", sa.String(length=1024), nullable=False),
        sa.Column("settings", sa.JSON(), nullable=False),
        sa.Column("budget_chf", sa.Float(), nullable=False),
        sa.Column("spent_chf", sa.Float(), nullable=False),
        sa.Column("status", sa.String(length=16), nullable=False),
        sa.Column("summary", sa.Text(), nullable=False),
        sa.Column("ended_at", UtcDateTime(timezone=True), nullable=True),
        sa.Column("created_at", UtcDateTime(timezone=True), nullable=False),
        sa.Column("updated_at", UtcDateTime(timezone=True), nullable=False),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_meeting_sessions")),
        _foreign_key("meeting_sessions", "mandate_id", "mandates"),
        _foreign_key("meeting_sessions", "owner_id", "users"),
        _foreign_key("meeting_sessions", "workflow_id", "workflows"),
    )
    for column in ("mandate_id", "owner_id", "workflow_id"):
        op.create_index(op.f(f"ix_meeting_sessions_{column}"), "meeting_sessions", [column])
    op.create_table(
        "meeting_directives",
        sa.Column("id", sa.String(length=36), nullable=False),
        sa.Column("session_id", sa.String(length=36), nullable=False),
        sa.Column("mandate_id", sa.String(length=36), nullable=False),
        sa.Column("author_id", sa.String(length=36), nullable=False),
        sa.Column("kind", sa.String(length=16), nullable=False),
        sa.Column("text", sa.Text(), nullable=False),
        sa.Column("withdrawn_at", UtcDateTime(timezone=True), nullable=True),
        sa.Column("created_at", UtcDateTime(timezone=True), nullable=False),
        sa.Column("updated_at", UtcDateTime(timezone=True), nullable=False),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_meeting_directives")),
        _foreign_key("meeting_directives", "session_id", "meeting_sessions"),
        _foreign_key("meeting_directives", "mandate_id", "mandates"),
        _foreign_key("meeting_directives", "author_id", "users"),
    )
    for column in ("session_id", "mandate_id"):
        op.create_index(op.f(f"ix_meeting_directives_{column}"), "meeting_directives", [column])


def downgrade() -> None:
    op.drop_table("meeting_directives")
    op.drop_table("meeting_sessions")
