"""Users, mandates, memberships and the first-start bootstrap, on both backends."""

from __future__ import annotations

import stat
from pathlib import Path

import pytest

from agentur.accounts import directory
from agentur.accounts.api_keys import authenticate
from agentur.accounts.bootstrap import LOCAL_ADMIN_EMAIL, ensure_local_admin
from agentur.context import Role
from agentur.errors import ConflictError, InvalidInputError, NotFoundError
from agentur.runtime import Runtime
from agentur.storage.models import User


async def test_duplicates_conflict_and_leave_the_transaction_usable(runtime: Runtime) -> None:
    async with runtime.database.transaction() as session:
        mandate = await directory.create_mandate(session, " Acme ")
        assert mandate.name == "Acme"
        user = await directory.create_user(session, "Alice@Example.COM", "Alice")
        assert user.email == "alice@example.com"
        await directory.add_membership(
            session, user_id=user.id, mandate_id=mandate.id, role=Role.admin
        )
        with pytest.raises(ConflictError, match="alice@example.com"):
            await directory.create_user(session, "alice@example.com")
        with pytest.raises(ConflictError, match="Acme"):
            await directory.create_mandate(session, "Acme")
        with pytest.raises(ConflictError, match="member"):
            await directory.add_membership(
                session, user_id=user.id, mandate_id=mandate.id, role=Role.viewer
            )
        # Conflicts are found before anything is written, so the transaction goes on.
        await directory.create_user(session, "bob@example.com")

    async with runtime.database.session() as session:
        assert (await directory.find_user_by_email(session, " ALICE@example.com")).id == user.id
        assert (await directory.find_mandate_by_name(session, "Acme")).id == mandate.id
        assert (await directory.find_user_by_email(session, "bob@example.com")).email
        with pytest.raises(NotFoundError, match="nobody@example.com"):
            await directory.find_user_by_email(session, "nobody@example.com")
        with pytest.raises(NotFoundError, match="Globex"):
            await directory.find_mandate_by_name(session, "Globex")
        with pytest.raises(InvalidInputError):
            await directory.create_user(session, "not-an-address")
        with pytest.raises(InvalidInputError):
            await directory.create_mandate(session, "  ")


async def test_bootstrap_runs_once_and_writes_a_private_key_file(
    runtime: Runtime, tmp_path: Path
) -> None:
    key_path = tmp_path / "keys" / "admin.key"
    key = await ensure_local_admin(runtime.database, key_path)
    assert key is not None and key.startswith("agt_")
    assert key_path.read_text().strip() == key
    assert stat.S_IMODE(key_path.stat().st_mode) == 0o600
    assert await ensure_local_admin(runtime.database, key_path) is None
    assert key_path.read_text().strip() == key

    async with runtime.database.transaction() as session:
        principal = await authenticate(session, key)
        admin = await session.get(User, principal.user_id)
        assert admin is not None and admin.email == LOCAL_ADMIN_EMAIL
        assert principal.is_platform_admin
        assert principal.role == Role.admin.value
        assert (await directory.find_mandate_by_name(session, "default")).id == (
            principal.mandate_id
        )
