"""Cookie sessions for the web app: a browser signs in with an API key once and then
sends an opaque, HttpOnly cookie instead of the key.

The cookie's token has 256 bits of entropy; only its SHA-256 is stored (a stolen database
yields no usable cookie). The CSRF token is an HMAC of the session token, so it needs no
column and is the same on every call of the session, yet cannot be derived without the
cookie, which scripts never see.

A session holds the API keys signed in with it, one per mandate: a key grants the session its
mandate and nothing else. Every request re-checks every key of the session (one joined query),
so a key revoked anywhere ends the sessions it is part of on their very next request, just as
a bearer key stops working (see `api_keys`). Expired sessions are deleted when met and swept
whenever a new session opens.
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import secrets
from dataclasses import dataclass
from datetime import datetime, timedelta

from sqlalchemy import ColumnElement, delete, select
from sqlalchemy.ext.asyncio import AsyncSession

from agentur.accounts.api_keys import Principal, authenticate, key_is_usable, use_is_due
from agentur.errors import (
    AuthenticationError,
    ForbiddenError,
    InvalidInputError,
    NotFoundError,
)
from agentur.storage.models import (
    ApiKey,
    Mandate,
    Membership,
    User,
    WebSession,
    WebSessionKey,
    utc_now,
)

TOKEN_BYTES = 32
CSRF_CONTEXT = b"agentur web session csrf"


@dataclass(frozen=True, slots=True)
class SessionMandate:
    mandate_id: str
    name: str
    role: str


@dataclass(frozen=True, slots=True)
class SignedInSession:
    session_id: str
    principal: Principal  # the key of the active mandate: who requests act as
    mandates: tuple[SessionMandate, ...]
    expires_at: datetime


def hash_token(token: str) -> str:
    return hashlib.sha256(token.encode()).hexdigest()


def csrf_token_for(token: str) -> str:
    digest = hmac.new(token.encode(), CSRF_CONTEXT, hashlib.sha256).digest()
    return base64.urlsafe_b64encode(digest).decode().rstrip("=")


def csrf_matches(token: str, sent: str | None) -> bool:
    # as bytes: a header may carry any latin-1 text, and compare_digest raises on non-ASCII str
    expected = csrf_token_for(token).encode()
    return hmac.compare_digest(expected, (sent or "").encode("utf-8", "surrogateescape"))


async def open_session(
    db: AsyncSession, api_key: str, max_age: timedelta, replacing: str | None = None
) -> tuple[str, SignedInSession]:
    """A new session for the key's mandate; returns the cookie's token (shown once) and it.

    `replacing`: the token of the browser's previous session, which the new cookie
    overwrites; its row goes now rather than at its expiry."""
    principal = await authenticate(db, api_key)
    now = utc_now()
    ended = WebSession.expires_at <= now
    if replacing:
        ended = ended | (WebSession.token_hash == hash_token(replacing))
    await db.execute(delete(WebSession).where(ended))
    token = secrets.token_urlsafe(TOKEN_BYTES)
    row = WebSession(
        token_hash=hash_token(token),
        active_mandate_id=principal.mandate_id,
        created_at=now,
        expires_at=now + max_age,
    )
    db.add(row)
    await db.flush()
    db.add(_session_key(row.id, principal))
    await db.flush()
    return token, await _checked(db, WebSession.id == row.id)


async def resume_session(
    db: AsyncSession, token: str, mandate_id: str | None = None
) -> SignedInSession:
    """The session the cookie names, every key re-checked, acting in `mandate_id` (one the
    session holds a key of) or else in the session's active mandate.

    The app names its mandate on every request: the active mandate is the session's, shared by
    all tabs of the browser, and a tab still showing mandate A after another tab switched to B
    must not upload into B. A mandate without its key in the session is refused (403).

    A session that expired, or whose keys are not all usable any more, is deleted here and
    AuthenticationError raised: the caller commits before answering so the delete holds."""
    return await _checked(db, WebSession.token_hash == hash_token(token), mandate_id)


async def add_key(db: AsyncSession, signed: SignedInSession, api_key: str) -> SignedInSession:
    """Another key joins the session (replacing one of the same mandate); its mandate becomes
    the active one. A bad key is bad input here (422), not a failed sign-in: the session
    itself stays valid.

    The cookie's token stays: a new one would void the CSRF token of the browser's other tabs.
    Over https the `__Host-` cookie cannot be planted by a sibling subdomain, so a session
    gaining a mandate cannot have been fixed by someone else."""
    try:
        principal = await authenticate(db, api_key)
    except AuthenticationError as error:
        raise InvalidInputError(f"api_key: {error.detail}") from None
    mandate_id = principal.mandate_id
    existing = await db.scalar(
        select(WebSessionKey).where(
            WebSessionKey.session_id == signed.session_id,
            WebSessionKey.mandate_id == mandate_id,
        )
    )
    if existing is None:
        db.add(_session_key(signed.session_id, principal))
    else:
        existing.api_key_id = principal.api_key_id
    return await _activate(db, signed.session_id, mandate_id)


async def switch_mandate(
    db: AsyncSession, signed: SignedInSession, mandate_id: str
) -> SignedInSession:
    if all(item.mandate_id != mandate_id for item in signed.mandates):
        raise NotFoundError(
            f"this session holds no key of mandate {mandate_id}: add one of its keys first"
        )
    return await _activate(db, signed.session_id, mandate_id)


async def end_session(db: AsyncSession, session_id: str) -> None:
    await db.execute(delete(WebSession).where(WebSession.id == session_id))


async def _activate(db: AsyncSession, session_id: str, mandate_id: str) -> SignedInSession:
    row = await db.get(WebSession, session_id)
    if row is None:
        raise AuthenticationError("the session ended meanwhile: sign in again")
    row.active_mandate_id = mandate_id
    await db.flush()
    return await _checked(db, WebSession.id == session_id)


def _session_key(session_id: str, principal: Principal) -> WebSessionKey:
    return WebSessionKey(
        session_id=session_id,
        api_key_id=principal.api_key_id,
        mandate_id=principal.mandate_id,
    )


async def _checked(
    db: AsyncSession, which: ColumnElement[bool], mandate_id: str | None = None
) -> SignedInSession:
    """The session `which` selects with all its keys, in one query (it runs on every request),
    acting in `mandate_id` if given, else in its active mandate."""
    rows = (
        await db.execute(
            select(WebSession, ApiKey, User, Membership, Mandate.name)
            .join(WebSessionKey, WebSessionKey.session_id == WebSession.id)
            .join(ApiKey, ApiKey.id == WebSessionKey.api_key_id)
            .join(User, User.id == ApiKey.user_id)
            .join(Mandate, Mandate.id == ApiKey.mandate_id)
            .outerjoin(
                Membership,
                (Membership.user_id == ApiKey.user_id)
                & (Membership.mandate_id == ApiKey.mandate_id),
            )
            .where(which)
            .order_by(Mandate.name)
        )
    ).all()
    if not rows:
        raise AuthenticationError("no such session (signed out or expired): sign in again")
    row = rows[0][0]
    keys = [(key, user, membership, name) for _, key, user, membership, name in rows]
    failure: AuthenticationError | None = None
    if row.expires_at <= utc_now():
        failure = AuthenticationError("the session expired: sign in again")
    if failure is None and any(
        membership is None or not key_is_usable(key.revoked_at, key.expires_at, user.is_active)
        for key, user, membership, _ in keys
    ):
        failure = AuthenticationError("a key of this session was revoked or expired: sign in again")
    wanted = mandate_id or row.active_mandate_id
    active = next(
        ((key, user, membership) for key, user, membership, _ in keys if key.mandate_id == wanted),
        None,
    )
    if failure is None and active is None and mandate_id is None:
        failure = AuthenticationError("the session holds no key of its mandate: sign in again")
    if failure is not None:
        # a statement, not session.delete(row): concurrent requests of the same browser
        # may end the same session at once, and the later finds nothing to delete
        await db.execute(delete(WebSession).where(WebSession.id == row.id))
        raise failure
    if active is None:  # a mandate the session holds no key of: refused, the session goes on
        raise ForbiddenError(
            f"X-Mandate: this session holds no key of mandate {mandate_id}: add one of its keys"
        )
    key, user, membership = active
    recorded_use = use_is_due(key.last_used_at)
    if recorded_use:  # committed by the caller, as for a bearer key
        key.last_used_at = utc_now()
    return SignedInSession(
        session_id=row.id,
        principal=Principal(
            user_id=user.id,
            mandate_id=membership.mandate_id,
            role=membership.role,
            is_platform_admin=user.is_platform_admin,
            api_key_id=key.id,
            recorded_use=recorded_use,
        ),
        mandates=tuple(
            SessionMandate(mandate_id=key.mandate_id, name=name, role=membership.role)
            for key, _, membership, name in keys
        ),
        expires_at=row.expires_at,
    )
