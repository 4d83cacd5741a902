"""API keys: random, shown once, stored as a hash, checked in constant time, revocable, expiring.

A key reads `agt_<lookup>_<secret>`. The lookup part finds the row; only the SHA-256 of the
secret is stored. The secret has 256 bits of entropy, so a fast hash is enough (no password
stretching needed; hashing costs about a microsecond), and `hmac.compare_digest` keeps the
comparison constant-time.

Every request checks its key against the database in one query (key, user and membership
joined), with no in-memory cache of verified keys: a key revoked by `agentur keys revoke` (another
process) or on another worker must stop working on the very next request, which no
per-process cache could promise. `last_used_at` is written at most once per
LAST_USED_RESOLUTION, so a read request normally writes nothing (on SQLite a write per request
would serialize all requests behind the one writer).

That query is on every request's path, so it is built once and runs on the session's connection
as plain SQL reading only the columns it needs (no ORM objects): a third of what the ORM query
cost (profiled on `GET /v1/files`).
"""

from __future__ import annotations

import hashlib
import hmac
import secrets
from dataclasses import dataclass
from datetime import datetime, timedelta

from sqlalchemy import and_, bindparam, select, update
from sqlalchemy.ext.asyncio import AsyncSession

from agentur.errors import AuthenticationError, NotFoundError
from agentur.names import clean_name
from agentur.storage.models import ApiKey, Membership, User, utc_now

PREFIX = "agt"
LAST_USED_RESOLUTION = timedelta(minutes=1)


@dataclass(frozen=True, slots=True)
class IssuedKey:
    key_id: str
    plaintext: str


@dataclass(frozen=True, slots=True)
class Principal:
    """Who an API key speaks for."""

    user_id: str
    mandate_id: str
    role: str
    is_platform_admin: bool
    api_key_id: str
    # last_used_at was moved on in the caller's session, which must commit it.
    recorded_use: bool


_PRINCIPAL = (
    select(
        ApiKey.id,
        ApiKey.secret_hash,
        ApiKey.revoked_at,
        ApiKey.expires_at,
        ApiKey.last_used_at,
        User.id.label("user_id"),
        User.is_active,
        User.is_platform_admin,
        Membership.mandate_id,
        Membership.role,
    )
    .join(User, User.id == ApiKey.user_id)
    .outerjoin(
        Membership,
        and_(Membership.user_id == ApiKey.user_id, Membership.mandate_id == ApiKey.mandate_id),
    )
    .where(ApiKey.lookup_id == bindparam("lookup_id"))
)


def _hash(secret: str) -> str:
    return hashlib.sha256(secret.encode()).hexdigest()


async def issue_api_key(
    session: AsyncSession,
    *,
    user_id: str,
    mandate_id: str,
    name: str = "",
    expires_at: datetime | None = None,
) -> IssuedKey:
    name = clean_name(name, "the key's name", required=False)
    lookup_id = secrets.token_hex(8)
    secret = secrets.token_urlsafe(32)
    row = ApiKey(
        lookup_id=lookup_id,
        secret_hash=_hash(secret),
        user_id=user_id,
        mandate_id=mandate_id,
        name=name,
        expires_at=expires_at,
    )
    session.add(row)
    await session.flush()
    return IssuedKey(key_id=row.id, plaintext=f"{PREFIX}_{lookup_id}_{secret}")


async def revoke_api_key(session: AsyncSession, key_id: str) -> None:
    row = await session.get(ApiKey, key_id)
    if row is None:
        raise NotFoundError(f"no API key with id {key_id}")
    if row.revoked_at is None:
        row.revoked_at = utc_now()


async def authenticate(session: AsyncSession, plaintext: str) -> Principal:
    """The principal behind a key, or AuthenticationError with one generic message.

    The message never says which part failed, so probing reveals nothing."""
    failure = AuthenticationError("invalid, expired or revoked API key")
    prefix, _, rest = plaintext.partition("_")
    lookup_id, _, secret = rest.partition("_")
    if prefix != PREFIX or not lookup_id or not secret:
        raise failure
    connection = await session.connection()
    row = (await connection.execute(_PRINCIPAL, {"lookup_id": lookup_id})).first()
    # Compare against a dummy hash when the row is missing, so timing does not reveal it.
    expected = row.secret_hash if row else _hash("")
    if not hmac.compare_digest(expected, _hash(secret)) or row is None:
        raise failure
    if not key_is_usable(row.revoked_at, row.expires_at, row.is_active) or row.mandate_id is None:
        raise failure
    recorded_use = use_is_due(row.last_used_at)
    if recorded_use:
        await connection.execute(
            update(ApiKey).where(ApiKey.id == row.id).values(last_used_at=utc_now())
        )
    return Principal(
        user_id=row.user_id,
        mandate_id=row.mandate_id,
        role=row.role,
        is_platform_admin=row.is_platform_admin,
        api_key_id=row.id,
        recorded_use=recorded_use,
    )


def key_is_usable(
    revoked_at: datetime | None, expires_at: datetime | None, user_is_active: bool
) -> bool:
    """Not revoked, not expired, and its user still active (the membership is checked by
    the caller's join: a key whose membership is gone speaks for no one)."""
    if revoked_at is not None or (expires_at is not None and expires_at <= utc_now()):
        return False
    return user_is_active


def use_is_due(last_used_at: datetime | None) -> bool:
    """Whether `last_used_at` is to be moved on (at most once per LAST_USED_RESOLUTION)."""
    return last_used_at is None or utc_now() - last_used_at >= LAST_USED_RESOLUTION
