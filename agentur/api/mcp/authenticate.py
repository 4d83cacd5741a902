"""Bearer authentication in front of the MCP transport: the same API keys as the REST API.

The tenant context comes from the key alone and travels to the MCP handlers in the ASGI scope
(the SDK hands them the Starlette request); a failure answers 401 problem+json before the
MCP layer sees the request; its `WWW-Authenticate` points OAuth clients at the protected-
resource metadata when an authorization server is configured.
"""

from __future__ import annotations

from collections.abc import Callable

from starlette.requests import Request
from starlette.types import ASGIApp, Receive, Scope, Send

from agentur.accounts.api_keys import authenticate
from agentur.api.problems import problem
from agentur.context import RequestContext, Role
from agentur.errors import AuthenticationError
from agentur.runtime_parts import RuntimeParts

SCOPE_KEY = "agentur.context"


async def context_from_key(runtime: RuntimeParts, token: str) -> RequestContext:
    if not token:
        raise AuthenticationError("send an API key as 'Authorization: Bearer <key>'")
    async with runtime.database.session() as session:
        principal = await authenticate(session, token)
        await session.commit()  # records last_used_at
    return RequestContext(
        user_id=principal.user_id,
        mandate_id=principal.mandate_id,
        role=Role(principal.role),
        language=runtime.settings.default_language,
        is_platform_admin=principal.is_platform_admin,
    )


def caller(request: Request | None) -> RequestContext:
    """The authenticated caller of an MCP request (set by `BearerAuth`)."""
    context = request.scope.get(SCOPE_KEY) if request is not None else None
    if not isinstance(context, RequestContext):
        raise AuthenticationError("this MCP request carries no authenticated caller")
    return context


class BearerAuth:
    """`challenge(request, sent)` gives the 401's `WWW-Authenticate` (OAuth discovery)."""

    def __init__(self, app: ASGIApp, challenge: Callable[[Request, bool], str]) -> None:
        self.app = app
        self.challenge = challenge

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        request = Request(scope)
        scheme, _, token = request.headers.get("authorization", "").partition(" ")
        token = token.strip() if scheme.lower() == "bearer" else ""
        try:
            context = await context_from_key(request.app.state.runtime, token)
        except AuthenticationError as error:
            refusal = problem(401, "Unauthorized", error.detail)
            refusal.headers["WWW-Authenticate"] = self.challenge(request, bool(token))
            await refusal(scope, receive, send)
            return
        scope[SCOPE_KEY] = context
        await self.app(scope, receive, send)
