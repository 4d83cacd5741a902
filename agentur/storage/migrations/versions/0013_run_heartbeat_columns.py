"""run heartbeat: the worker running an agent run refreshes `heartbeat_at`; budget holds name
the run that made them, so recovering a dead run releases them

Revision ID: 0013
Revises: 0012
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

from agentur.storage.models.base import UtcDateTime

revision = "0013"
down_revision = "0012"
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("agent_runs") as table:
        table.add_column(sa.Column("heartbeat_at", UtcDateTime(), nullable=True))
    # Runs left `running` by an earlier version count from their start: if still running
    # after the timeout, no worker of this version is beating for them.
    op.execute("UPDATE agent_runs SET heartbeat_at = created_at WHERE status = 'running'")
    op.create_index("ix_agent_runs_status_heartbeat", "agent_runs", ["status", "heartbeat_at"])
    with op.batch_alter_table("ai_reservations") as table:
        table.add_column(sa.Column("holder", sa.String(length=36), nullable=True))
    op.create_index("ix_ai_reservations_holder", "ai_reservations", ["holder"])


def downgrade() -> None:
    op.drop_index("ix_ai_reservations_holder", table_name="ai_reservations")
    with op.batch_alter_table("ai_reservations") as table:
        table.drop_column("holder")
    op.drop_index("ix_agent_runs_status_heartbeat", table_name="agent_runs")
    with op.batch_alter_table("agent_runs") as table:
        table.drop_column("heartbeat_at")
