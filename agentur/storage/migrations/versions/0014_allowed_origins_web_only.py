"""allowed_origins holds web origins only: stored definitions are cleaned the way the definition
now validates them ('null', '*', paths and other non-origins dropped, each logged), so an
assistant saved before the rule keeps answering its visitors instead of failing validation

Revision ID: 0014
Revises: 0013
"""

from __future__ import annotations

import logging
import re

import sqlalchemy as sa
from alembic import op

revision = "0014"
down_revision = "0013"
branch_labels = None
depends_on = None

logger = logging.getLogger("alembic.runtime.migration")
# The definition's ORIGIN_PATTERN at this revision (copied: a migration must not change when
# the application's constant does).
ORIGIN_PATTERN = r"^[hH][tT][tT][pP][sS]?://([A-Za-z0-9.-]+|\[[0-9A-Fa-f:.]+\])(:[0-9]{1,5})?/?$"

assistants = sa.table("assistants", sa.column("id", sa.String), sa.column("definition", sa.JSON))


def web_origins(origins: list[object]) -> tuple[list[str], list[object]]:
    """(kept, dropped): kept entries are trimmed web origins."""
    kept: list[str] = []
    dropped: list[object] = []
    for origin in origins:
        candidate = origin.strip() if isinstance(origin, str) else None
        if candidate is not None and re.fullmatch(ORIGIN_PATTERN, candidate):
            kept.append(candidate)
        else:
            dropped.append(origin)
    return kept, dropped


def upgrade() -> None:
    connection = op.get_bind()
    rows = connection.execute(sa.select(assistants.c.id, assistants.c.definition)).all()
    for assistant_id, definition in rows:
        origins = (definition or {}).get("allowed_origins") or []
        kept, dropped = web_origins(list(origins))
        if kept == origins:
            continue
        logger.warning(
            "assistant %s: allowed_origins entries that are no web origins removed: %r",
            assistant_id,
            dropped,
        )
        connection.execute(
            assistants.update()
            .where(assistants.c.id == assistant_id)
            .values(definition={**definition, "allowed_origins": kept})
        )


def downgrade() -> None:
    """Nothing to undo: the removed entries were never valid origins."""
