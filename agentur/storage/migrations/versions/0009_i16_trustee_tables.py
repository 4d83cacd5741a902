"""trustee feature tables: accounts, journal entries, customers, invoices per instance;
per-instance domain hints for the feature-data sub-agent; workflows.archived_at (bookkeeping)

Revision ID: 0009
Revises: 0008
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

from agentur.storage.models.base import UtcDateTime

revision = "0009"
down_revision = "0008"
branch_labels = None
depends_on = None

MONEY = sa.BigInteger()  # integer cents (agentur.storage.models.trustee.Money)

TABLES: dict[str, tuple[list[sa.Column], list[str]]] = {
    "trustee_accounts": (
        [
            sa.Column("number", sa.String(16), nullable=False),
            sa.Column("name", sa.String(200), nullable=False),
            sa.Column("category", sa.String(16), nullable=False),
            sa.Column("opening_balance", MONEY, nullable=False),
            sa.Column("closing_balance", MONEY, nullable=False),
        ],
        ["instance_id", "number"],
    ),
    "trustee_journal_entries": (
        [
            sa.Column("entry_date", sa.Date(), nullable=False),
            sa.Column("period", sa.String(7), nullable=False),
            sa.Column("account_number", sa.String(16), nullable=False),
            sa.Column("description", sa.String(500), nullable=False),
            sa.Column("debit", MONEY, nullable=False),
            sa.Column("credit", MONEY, nullable=False),
        ],
        ["instance_id", "account_number", "period"],
    ),
    "trustee_customers": (
        [
            sa.Column("number", sa.String(32), nullable=False),
            sa.Column("name", sa.String(200), nullable=False),
            sa.Column("city", sa.String(100), nullable=False),
            sa.Column("revenue_total", MONEY, nullable=False),
        ],
        ["instance_id", "number"],
    ),
    "trustee_invoices": (
        [
            sa.Column("number", sa.String(32), nullable=False),
            sa.Column("customer_number", sa.String(32), nullable=False),
            sa.Column("issue_date", sa.Date(), nullable=False),
            sa.Column("due_date", sa.Date(), nullable=False),
            sa.Column("amount", MONEY, nullable=False),
            sa.Column("status", sa.String(16), nullable=False),
            sa.Column("paid_date", sa.Date(), nullable=True),
        ],
        ["instance_id", "status"],
    ),
}
INDEX_NAMES = {
    "trustee_accounts": "ix_trustee_accounts_instance",
    "trustee_journal_entries": "ix_trustee_journal_instance_account",
    "trustee_customers": "ix_trustee_customers_instance",
    "trustee_invoices": "ix_trustee_invoices_instance",
}


def upgrade() -> None:
    with op.batch_alter_table("feature_instances") as batch:
        batch.add_column(sa.Column("agent_hints", sa.Text(), nullable=True))
    with op.batch_alter_table("workflows") as batch:
        batch.add_column(sa.Column("archived_at", UtcDateTime(timezone=True), nullable=True))
    for table, (columns, index_columns) in TABLES.items():
        op.create_table(
            table,
            sa.Column("row_id", sa.Integer(), autoincrement=True, nullable=False),
            sa.Column("mandate_id", sa.String(length=36), nullable=False),
            sa.Column("instance_id", sa.String(length=36), nullable=False),
            *columns,
            sa.PrimaryKeyConstraint("row_id", name=op.f(f"pk_{table}")),
            sa.ForeignKeyConstraint(
                ["mandate_id"],
                ["mandates.id"],
                name=op.f(f"fk_{table}_mandate_id_mandates"),
                ondelete="CASCADE",
            ),
            sa.ForeignKeyConstraint(
                ["instance_id"],
                ["feature_instances.id"],
                name=op.f(f"fk_{table}_instance_id_feature_instances"),
                ondelete="CASCADE",
            ),
        )
        op.create_index(INDEX_NAMES[table], table, index_columns)


def downgrade() -> None:
    for table in reversed(TABLES):
        op.drop_index(INDEX_NAMES[table], table_name=table)
        op.drop_table(table)
    with op.batch_alter_table("feature_instances") as batch:
        batch.drop_column("agent_hints")
    with op.batch_alter_table("workflows") as batch:
        batch.drop_column("archived_at")
