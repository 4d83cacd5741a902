"""names fit the name limit: every user-given name column holds AGENTUR_MAX_NAME_LENGTH's
highest value

Revision ID: 0016
Revises: 0015

Every user-given name (connections, assistants, mandates, feature instances, API keys, user
display names, workflow titles) follows the one name rule, limited by AGENTUR_MAX_NAME_LENGTH
(default 255, at most 1024) as file and folder names already were; their columns were
VARCHAR(200) (titles 500), so PostgreSQL widens them to 1024. Stored values are unchanged.
SQLite does not enforce a VARCHAR length: nothing changes there.
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0016"
down_revision = "0015"
branch_labels = None
depends_on = None

COLUMNS = (
    ("users", "display_name", 200),
    ("mandates", "name", 200),
    ("feature_instances", "name", 200),
    ("api_keys", "name", 200),
    ("assistants", "name", 200),
    ("connections", "display_name", 200),
    ("workflows", "title", 500),
)
NAME_COLUMN_LENGTH = 1024


def upgrade() -> None:
    if op.get_bind().dialect.name != "postgresql":
        return
    for table, column, old in COLUMNS:
        op.alter_column(
            table,
            column,
            type_=sa.String(NAME_COLUMN_LENGTH),
            existing_type=sa.String(old),
        )


def downgrade() -> None:
    if op.get_bind().dialect.name != "postgresql":
        return
    for table, column, old in COLUMNS:
        # Longer names than the old column held are cut, as the old limit would have refused.
        op.execute(f"UPDATE {table} SET {column} = left({column}, {old})")
        op.alter_column(
            table, column, type_=sa.String(old), existing_type=sa.String(NAME_COLUMN_LENGTH)
        )
