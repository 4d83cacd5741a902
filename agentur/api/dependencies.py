"""FastAPI dependencies: the runtime, a database session, the authenticated request context."""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Annotated

from fastapi import Depends, Request
from fastapi.security import HTTPAuthorizationCredentials, HTTPBearer
from sqlalchemy.ext.asyncio import AsyncSession

from agentur.accounts.api_keys import Principal, authenticate
from agentur.accounts.directory import feature_instance_in_mandate
from agentur.accounts.sessions import csrf_matches, resume_session
from agentur.context import (
    RequestContext,
    Role,
    resolve_language,
    resolve_timezone,
    set_request_context,
)
from agentur.errors import AuthenticationError, ForbiddenError
from agentur.runtime import Runtime
from agentur.workflows.service import WorkflowService
from agentur.workspace.files import FileService
from agentur.workspace.folders import FolderService

TRUE_VALUES = {"1", "true", "yes", "on"}
SESSION_COOKIE = "agentur_session"
# Over https the cookie is `__Host-` prefixed: browsers then accept it only Secure, for Path=/
# and from this very host, so a sibling subdomain cannot plant or overwrite it (cookie tossing).
SECURE_SESSION_COOKIE = f"__Host-{SESSION_COOKIE}"
UNSAFE_METHODS = {"POST", "PUT", "PATCH", "DELETE"}


# Dependencies are `async def` even where they do not await: FastAPI runs a plain `def` one in
# its thread pool, a thread round trip per dependency and request for nothing. The ones every
# authenticated request solves take the `Request` and read the runtime from it rather than
# naming `RuntimeDep`: FastAPI solves each named dependency anew (its cache saves only the
# call), about 20 µs a time (profiled on `GET /v1/files`).


def runtime_of(request: Request) -> Runtime:
    runtime: Runtime = request.app.state.runtime
    return runtime


async def get_runtime(request: Request) -> Runtime:
    return runtime_of(request)


RuntimeDep = Annotated[Runtime, Depends(get_runtime)]


async def get_session(request: Request) -> AsyncIterator[AsyncSession]:
    """One session per request. Routes that change data commit explicitly before they answer,
    so a reported success is always a committed one; anything else is rolled back."""
    async with runtime_of(request).database.session() as session:
        yield session


SessionDep = Annotated[AsyncSession, Depends(get_session)]


async def hand_back_connection(session: AsyncSession) -> None:
    """Ends the session's transaction (committing what it wrote), so its pooled connection
    goes back to the pool; the session checks one out again when it is used next.

    A request holds at most one connection at a time: the route's work may take connections
    of its own (the gateway's bookkeeping, a run's task, a service's session), and a request
    holding one idle while it waits for another starves the pool under concurrency — each
    waiting request holds what the others wait for."""
    await session.commit()


# Declares the bearer scheme in the OpenAPI document (Swagger UI's Authorize button); a missing
# or non-bearer header yields None and our own 401 problem, never FastAPI's plain 403.
bearer = HTTPBearer(auto_error=False, description="An API key: `Authorization: Bearer <key>`.")
BearerDep = Annotated[HTTPAuthorizationCredentials | None, Depends(bearer)]


def session_cookie_name(request: Request) -> str:
    return SECURE_SESSION_COOKIE if request.url.scheme == "https" else SESSION_COOKIE


def bearer_token(credentials: HTTPAuthorizationCredentials | None) -> str:
    return credentials.credentials.strip() if credentials else ""


async def _principal(
    request: Request, session: AsyncSession, credentials: HTTPAuthorizationCredentials | None
) -> Principal:
    """The bearer key's principal; without a bearer header, the web app's session cookie's."""
    token = bearer_token(credentials)
    if token:
        return await authenticate(session, token)
    cookie = request.cookies.get(session_cookie_name(request))
    if not cookie:
        raise AuthenticationError(
            "send an API key as 'Authorization: Bearer <key>' (or sign in: POST /v1/sessions)"
        )
    try:
        # X-Mandate: the mandate the app's tab shows (see resume_session)
        signed = await resume_session(session, cookie, request.headers.get("x-mandate") or None)
    except AuthenticationError:
        await session.commit()  # an ended session (key revoked, expired) stays deleted
        raise
    # The cookie rides along on any request the browser makes, even one another site
    # triggers; the CSRF token only the app's own script can read proves the app sent it.
    if request.method in UNSAFE_METHODS and not csrf_matches(
        cookie, request.headers.get("x-csrf-token")
    ):
        raise ForbiddenError(
            "a signed-in browser must send its session's CSRF token as X-CSRF-Token "
            "on every POST, PUT, PATCH and DELETE"
        )
    request.state.web_session = signed
    request.state.web_session_token = cookie
    return signed.principal


async def get_request_context(
    request: Request, session: SessionDep, credentials: BearerDep
) -> RequestContext:
    # The context headers are read here, not declared as FastAPI parameters: four declared
    # headers cost 5% of a `GET /v1/files` request's instructions (callgrind). The OpenAPI
    # document still lists them (`agentur.api.openapi.CONTEXT_HEADERS`).
    headers = request.headers
    return await request_context(
        request,
        session,
        credentials,
        x_feature_instance=headers.get("x-feature-instance"),
        x_user_timezone=headers.get("x-user-timezone"),
        x_require_neutralization=headers.get("x-require-neutralization"),
        accept_language=headers.get("accept-language"),
    )


async def request_context(
    request: Request,
    session: AsyncSession,
    credentials: HTTPAuthorizationCredentials | None,
    *,
    x_feature_instance: str | None = None,
    x_user_timezone: str | None = None,
    x_require_neutralization: str | None = None,
    accept_language: str | None = None,
) -> RequestContext:
    """The caller's context from their key or session cookie and the context headers given."""
    principal = await _principal(request, session, credentials)
    feature_instance_id = None
    if x_feature_instance:
        instance = await feature_instance_in_mandate(
            session, x_feature_instance, principal.mandate_id
        )
        if instance is None:
            raise ForbiddenError("X-Feature-Instance names no feature instance of your mandate")
        feature_instance_id = instance.id
    # Also commits last_used_at when it moved on (at most once a minute per key).
    await hand_back_connection(session)
    context = RequestContext(
        user_id=principal.user_id,
        mandate_id=principal.mandate_id,
        role=Role(principal.role),
        feature_instance_id=feature_instance_id,
        # A header can only switch neutralization on, never off.
        require_neutralization=(x_require_neutralization or "").lower() in TRUE_VALUES,
        timezone=resolve_timezone(x_user_timezone),
        language=resolve_language(accept_language, runtime_of(request).settings.default_language),
        is_platform_admin=principal.is_platform_admin,
    )
    set_request_context(context)
    request.state.context = context
    return context


ContextDep = Annotated[RequestContext, Depends(get_request_context)]


async def get_file_service(
    request: Request, session: SessionDep, context: ContextDep
) -> FileService:
    runtime = runtime_of(request)
    return FileService(session, runtime.blobs, context, runtime.workspace_limits)


async def get_folder_service(
    request: Request, session: SessionDep, context: ContextDep
) -> FolderService:
    return FolderService(session, context, runtime_of(request).settings.max_name_length)


async def get_workflow_service(session: SessionDep, context: ContextDep) -> WorkflowService:
    return WorkflowService(session, context)


FileServiceDep = Annotated[FileService, Depends(get_file_service)]
FolderServiceDep = Annotated[FolderService, Depends(get_folder_service)]
WorkflowServiceDep = Annotated[WorkflowService, Depends(get_workflow_service)]
