"""/v1/sessions — the web app's sign-in: an API key once, then an HttpOnly session cookie.

`POST /v1/sessions` answers with `Set-Cookie` (HttpOnly, SameSite=Strict, Secure over https)
and a CSRF token the app sends as `X-CSRF-Token` on every unsafe request (see
`agentur.api.dependencies`). The `current` routes act on the session the cookie names."""

from __future__ import annotations

from datetime import datetime, timedelta
from urllib.parse import urlsplit

from fastapi import APIRouter, Request, Response, status
from pydantic import BaseModel, Field

from agentur.accounts import sessions
from agentur.accounts.sessions import SignedInSession
from agentur.api.dependencies import (
    ContextDep,
    RuntimeDep,
    SessionDep,
    session_cookie_name,
)
from agentur.api.problems import AUTHENTICATED, problem_responses
from agentur.errors import AuthenticationError, ForbiddenError

router = APIRouter(prefix="/sessions", tags=["sessions"], responses=AUTHENTICATED)
MAX_KEY_LENGTH = 200  # far above a real key (`agt_` + 16 + 43 characters)


class SignIn(BaseModel):
    api_key: str = Field(min_length=1, max_length=MAX_KEY_LENGTH, description="An API key.")


class SwitchMandate(BaseModel):
    mandate_id: str = Field(min_length=1, max_length=36)


class SessionMandateOut(BaseModel):
    mandate_id: str
    name: str
    role: str


class SessionOut(BaseModel):
    csrf_token: str = Field(description="Send as `X-CSRF-Token` on POST, PUT, PATCH, DELETE.")
    user_id: str
    mandate_id: str = Field(description="The mandate requests act in.")
    role: str
    mandates: list[SessionMandateOut] = Field(description="Every mandate the session holds.")
    expires_at: datetime


def _out(signed: SignedInSession, token: str) -> SessionOut:
    principal = signed.principal
    return SessionOut(
        csrf_token=sessions.csrf_token_for(token),
        user_id=principal.user_id,
        mandate_id=principal.mandate_id,
        role=principal.role,
        mandates=[
            SessionMandateOut(mandate_id=item.mandate_id, name=item.name, role=item.role)
            for item in signed.mandates
        ],
        expires_at=signed.expires_at,
    )


def _current(request: Request) -> tuple[SignedInSession, str]:
    signed: SignedInSession | None = getattr(request.state, "web_session", None)
    if signed is None:
        raise AuthenticationError("no session cookie: sign in with POST /v1/sessions")
    return signed, request.state.web_session_token


def _check_origin(request: Request) -> None:
    """Login CSRF: another site's page must not sign a browser into someone else's session.
    Browsers send `Origin` on every POST; a non-browser client sends none. The host is
    compared, not the scheme: behind a TLS-terminating proxy the app sees http."""
    origin = request.headers.get("origin")
    if origin is not None and urlsplit(origin).netloc != request.url.netloc:
        raise ForbiddenError(
            f"sign-in from origin {origin} refused: only pages of {request.url.netloc} may sign in"
        )


def _set_cookie(request: Request, response: Response, token: str, max_age: int) -> None:
    response.set_cookie(
        session_cookie_name(request),
        token,
        max_age=max_age,
        path="/",
        httponly=True,
        samesite="strict",
        secure=request.url.scheme == "https",
    )


@router.post("", status_code=status.HTTP_201_CREATED)
async def sign_in(
    body: SignIn, request: Request, response: Response, runtime: RuntimeDep, db: SessionDep
) -> SessionOut:
    """Sign a browser in with an API key; the session cookie then stands in for the key."""
    _check_origin(request)
    max_age = runtime.settings.session_max_age_seconds
    token, signed = await sessions.open_session(
        db,
        body.api_key,
        timedelta(seconds=max_age),
        request.cookies.get(session_cookie_name(request)),
    )
    await db.commit()
    _set_cookie(request, response, token, max_age)
    return _out(signed, token)


@router.get("/current")
async def current_session(request: Request, context: ContextDep) -> SessionOut:
    """The signed-in session with its CSRF token (the app calls this after a reload)."""
    signed, token = _current(request)
    return _out(signed, token)


@router.post("/current/keys")
async def add_session_key(
    body: SignIn, request: Request, db: SessionDep, context: ContextDep
) -> SessionOut:
    """Another mandate's key joins the session, and its mandate becomes the active one."""
    signed, token = _current(request)
    changed = await sessions.add_key(db, signed, body.api_key)
    await db.commit()
    return _out(changed, token)


@router.put("/current/mandate", responses=problem_responses(404))
async def switch_mandate(
    body: SwitchMandate, request: Request, db: SessionDep, context: ContextDep
) -> SessionOut:
    """Act in another mandate of the session (one whose key was signed in with it)."""
    signed, token = _current(request)
    changed = await sessions.switch_mandate(db, signed, body.mandate_id)
    await db.commit()
    return _out(changed, token)


@router.delete("/current", status_code=status.HTTP_204_NO_CONTENT)
async def sign_out(
    request: Request, response: Response, db: SessionDep, context: ContextDep
) -> None:
    """Sign out: the session row is deleted, so the cookie is worthless even if kept."""
    signed, _ = _current(request)
    await sessions.end_session(db, signed.session_id)
    await db.commit()
    response.delete_cookie(
        session_cookie_name(request),
        path="/",
        secure=request.url.scheme == "https",
        httponly=True,
        samesite="strict",
    )
