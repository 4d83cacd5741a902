"""First start on an empty database: a local admin, a default mandate and an API key."""

from __future__ import annotations

import os
from pathlib import Path

from sqlalchemy import func, select

from agentur.accounts.api_keys import issue_api_key
from agentur.accounts.directory import add_membership, create_mandate, create_user
from agentur.context import Role
from agentur.storage.database import Database
from agentur.storage.models import User

LOCAL_ADMIN_EMAIL = "admin@localhost"
DEFAULT_MANDATE = "default"


async def ensure_local_admin(database: Database, key_path: Path) -> str | None:
    """Create the admin and return the new key when no user exists yet; else None.

    The key goes to `key_path` with mode 0600 so only the operator can read it."""
    async with database.transaction() as session:
        if await session.scalar(select(func.count()).select_from(User)):
            return None
        user = await create_user(session, LOCAL_ADMIN_EMAIL, "Local admin", is_platform_admin=True)
        mandate = await create_mandate(session, DEFAULT_MANDATE)
        await add_membership(session, user_id=user.id, mandate_id=mandate.id, role=Role.admin)
        issued = await issue_api_key(
            session, user_id=user.id, mandate_id=mandate.id, name="local admin"
        )
    write_secret_file(key_path, issued.plaintext)
    return issued.plaintext


def write_secret_file(path: Path, secret: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    descriptor = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(descriptor, "w") as handle:
        handle.write(secret + "\n")
    os.chmod(path, 0o600)
