"""CORS of the visitor conversation routes: granted per request to the origins the assistant
lists in `allowed_origins`, on every answer — errors included, so a widget on an allowed site
can read a problem+json (a 429, an expired conversation) instead of an opaque network error.

The conversations router runs `cors_headers` first (a router dependency) and keeps the grant
for the problem+json handlers (`keep_for_errors`).
"""

from __future__ import annotations

from typing import Annotated

from fastapi import Depends, Request

from agentur.api.dependencies import SessionDep
from agentur.api.problems import keep_for_errors
from agentur.assistant.conversation_access import TOKEN_HEADER
from agentur.assistant.visitor_origin import is_allowed_origin

CORS_METHODS = "GET, POST, OPTIONS"
CORS_HEADERS = (
    f"Authorization, Content-Type, Accept, Accept-Language, X-User-Timezone, {TOKEN_HEADER}"
)
PREFLIGHT_MAX_AGE = "600"


async def cors_headers(assistant_id: str, request: Request, session: SessionDep) -> dict[str, str]:
    """CORS headers when the request's Origin is allowed for this assistant (else none).
    A publishable key from any other origin is refused by the caller dependency."""
    origin = request.headers.get("origin")
    headers: dict[str, str] = {}
    if origin and await is_allowed_origin(session, assistant_id, origin):
        headers = {"Access-Control-Allow-Origin": origin, "Vary": "Origin"}
    keep_for_errors(request, headers)
    return headers


CorsDep = Annotated[dict[str, str], Depends(cors_headers)]


def preflight_headers(cors: dict[str, str]) -> dict[str, str]:
    if not cors:
        return {}
    return cors | {
        "Access-Control-Allow-Methods": CORS_METHODS,
        "Access-Control-Allow-Headers": CORS_HEADERS,
        "Access-Control-Max-Age": PREFLIGHT_MAX_AGE,
    }
