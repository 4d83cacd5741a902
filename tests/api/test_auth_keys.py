"""Authentication with API keys: every failure is one 401 problem; keys are stored hashed."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from pathlib import Path

import httpx
from sqlalchemy import delete, select, text

from agentur.accounts.api_keys import LAST_USED_RESOLUTION, issue_api_key, revoke_api_key
from agentur.runtime import Runtime
from agentur.storage.models import ApiKey, Base, Membership, User
from tests.api.files_helpers import assert_problem
from tests.conftest import Tenants

GENERIC = "invalid, expired or revoked API key"


def _assert_unauthorized(response: httpx.Response, detail: str | None = None) -> None:
    body = assert_problem(response, 401)
    assert response.headers["www-authenticate"] == "Bearer"
    if detail is not None:
        assert body["detail"] == detail


MALFORMED = [None, "", "Bearer", "Bearer    ", "Basic YWxhZGRpbjpvcGVuc2VzYW1l", "Token x"]


async def test_missing_or_malformed_authorization(
    client: httpx.AsyncClient, tenants: Tenants
) -> None:
    alice = await tenants.member()
    for authorization in [*MALFORMED, alice.key]:  # a bare key lacks the scheme
        headers = {} if authorization is None else {"Authorization": authorization}
        for path in ("/v1/me", "/v1/files", "/v1/folders", "/v1/workflows"):
            response = await client.get(path, headers=headers)
            _assert_unauthorized(response)
            assert "Bearer" in response.json()["detail"], authorization


async def test_unknown_revoked_and_expired_keys_get_the_same_answer(
    client: httpx.AsyncClient, tenants: Tenants, runtime: Runtime
) -> None:
    alice = await tenants.member()
    prefix, lookup, secret = alice.key.split("_", 2)
    async with runtime.database.transaction() as session:
        expired = await issue_api_key(
            session,
            user_id=alice.user_id,
            mandate_id=alice.mandate_id,
            expires_at=datetime.now(UTC) - timedelta(seconds=1),
        )
        revoked = await issue_api_key(session, user_id=alice.user_id, mandate_id=alice.mandate_id)
        later = await issue_api_key(
            session,
            user_id=alice.user_id,
            mandate_id=alice.mandate_id,
            expires_at=datetime.now(UTC) + timedelta(days=1),
        )
        await revoke_api_key(session, revoked.key_id)

    for key in (
        "agt_0000000000000000_" + secret,  # unknown lookup id
        f"{prefix}_{lookup}_{secret[:-1]}x",  # right row, wrong secret
        f"{prefix}_{lookup}_",  # right row, no secret
        f"xyz_{lookup}_{secret}",  # wrong prefix
        expired.plaintext,
        revoked.plaintext,
    ):
        response = await client.get("/v1/me", headers={"Authorization": f"Bearer {key}"})
        _assert_unauthorized(response, GENERIC)

    assert (await client.get("/v1/me", headers=alice.headers)).status_code == 200
    not_yet_expired = {"Authorization": f"Bearer {later.plaintext}"}
    assert (await client.get("/v1/me", headers=not_yet_expired)).status_code == 200
    # The scheme is case-insensitive, as HTTP says.
    lower = {"Authorization": f"bearer {alice.key}"}
    assert (await client.get("/v1/me", headers=lower)).status_code == 200


async def test_deactivated_user_or_removed_member_loses_access(
    client: httpx.AsyncClient, tenants: Tenants, runtime: Runtime
) -> None:
    alice = await tenants.member()
    bob = await tenants.member()
    async with runtime.database.transaction() as session:
        (await session.get(User, alice.user_id)).is_active = False  # type: ignore[union-attr]
        await session.execute(delete(Membership).where(Membership.user_id == bob.user_id))
    _assert_unauthorized(await client.get("/v1/me", headers=alice.headers), GENERIC)
    _assert_unauthorized(await client.get("/v1/files", headers=bob.headers), GENERIC)


async def test_a_key_revoked_elsewhere_fails_on_the_next_request(
    client: httpx.AsyncClient, tenants: Tenants, runtime: Runtime
) -> None:
    """No verified-key cache may outlive a revoke made by another process or worker."""
    alice = await tenants.member()
    for _ in range(3):  # used, so anything that could remember it has seen it
        assert (await client.get("/v1/files", headers=alice.headers)).status_code == 200
    lookup = alice.key.split("_")[1]
    async with runtime.database.transaction() as session:  # as `agentur keys revoke` does
        key_id = await session.scalar(select(ApiKey.id).where(ApiKey.lookup_id == lookup))
        assert key_id is not None
        await revoke_api_key(session, key_id)
    _assert_unauthorized(await client.get("/v1/files", headers=alice.headers), GENERIC)


async def test_last_used_at_is_written_at_most_once_per_resolution(
    client: httpx.AsyncClient, tenants: Tenants, runtime: Runtime
) -> None:
    alice = await tenants.member()

    async def last_used() -> datetime | None:
        async with runtime.database.session() as session:
            return await session.scalar(select(ApiKey.last_used_at))

    assert await last_used() is None
    assert (await client.get("/v1/me", headers=alice.headers)).status_code == 200
    first = await last_used()
    assert first is not None
    assert (await client.get("/v1/me", headers=alice.headers)).status_code == 200
    assert await last_used() == first  # a read request wrote nothing
    stale = first - LAST_USED_RESOLUTION - timedelta(seconds=1)
    async with runtime.database.transaction() as session:
        (await session.execute(select(ApiKey))).scalar_one().last_used_at = stale
    assert (await client.get("/v1/me", headers=alice.headers)).status_code == 200
    refreshed = await last_used()
    assert refreshed is not None and refreshed >= first


async def test_keys_are_stored_hashed_only(
    client: httpx.AsyncClient, tenants: Tenants, runtime: Runtime
) -> None:
    alice = await tenants.member()
    assert (await client.get("/v1/me", headers=alice.headers)).status_code == 200
    secret = alice.key.split("_", 2)[2]
    dump: list[str] = []
    async with runtime.database.session() as session:
        for table in Base.metadata.sorted_tables:
            exists = await session.run_sync(
                lambda sync, name=table.name: sync.get_bind().dialect.has_table(
                    sync.connection(), name
                )
            )
            if exists:
                rows = await session.execute(text(f'SELECT * FROM "{table.name}"'))
                dump.extend(repr(tuple(row)) for row in rows)
        row = (await session.execute(select(ApiKey))).scalar_one()
    assert dump, "the dump should contain rows"
    assert not [line for line in dump if secret in line or alice.key in line]
    assert len(row.secret_hash) == 64 and row.secret_hash != secret
    assert row.last_used_at is not None
    if runtime.database.is_sqlite:
        # Also nothing in the raw database files (WAL included).
        database_file = runtime.database.engine.url.database
        assert database_file
        for path in Path(database_file).parent.glob("agentur.db*"):
            assert secret.encode() not in path.read_bytes()


async def test_health_and_openapi_need_no_key(client: httpx.AsyncClient) -> None:
    health = await client.get("/healthz")
    assert health.status_code == 200
    assert health.json()["status"] == "ok"
    assert health.json()["database"] in ("sqlite", "postgresql")
    schema = await client.get("/openapi.json")
    assert schema.status_code == 200
    assert "/v1/files/{file_id}/content" in schema.json()["paths"]
