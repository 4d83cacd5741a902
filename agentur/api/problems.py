"""RFC 9457 problem+json for every error the API returns, and how the OpenAPI document says so."""

from __future__ import annotations

import json
import logging
import re
from typing import Any

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse
from pydantic import BaseModel, Field
from sqlalchemy.exc import DBAPIError
from sqlalchemy.exc import TimeoutError as PoolTimeoutError
from starlette.exceptions import HTTPException as StarletteHTTPException

from agentur.api.backpressure.request_slots import tenant_limits
from agentur.errors import AgenturError
from agentur.storage.unavailable import unavailable_reason

logger = logging.getLogger(__name__)
PROBLEM_JSON = "application/problem+json"
PROBLEM_SCHEMA_REF = "#/components/schemas/Problem"

# What each status means on this API; the OpenAPI document repeats it per operation.
STATUS_MEANINGS = {
    400: "Malformed request (e.g. a body that is not JSON).",
    401: "No valid API key: send `Authorization: Bearer <key>`.",
    402: "The mandate's AI balance or monthly limit does not cover the call.",
    403: "The key's role may not do this, or `X-Feature-Instance` names no instance of "
    "your mandate.",
    404: "Not found, or not yours to see (both answer alike).",
    405: "Method not allowed; `Allow` lists the methods this path has.",
    409: "Conflicts with the current state (a taken name, a finished run).",
    413: "The request body is larger than the configured limit.",
    422: "Invalid input; `errors` names each field.",
    429: "Too many requests: your mandate's limit of concurrent work of this kind on this "
    "server, or a visitor key's rate; retry after `Retry-After` seconds.",
    502: "The model provider or the assistant's API failed.",
    503: "The server is saturated (no database connection or slot came free within the "
    "configured wait; retry after `Retry-After` seconds), or a needed service (model provider, "
    "e-mail) is not configured or not reachable.",
}
# Statuses that tell the client to come back later: they always carry `Retry-After`.
RETRY_LATER = {429, 503}


class FieldProblem(BaseModel):
    field: str
    message: str


class Problem(BaseModel):
    """An error (RFC 9457)."""

    type: str = Field(default="about:blank")
    title: str
    status: int = Field(ge=400, le=599)
    detail: str = Field(description="What was wrong, specific enough to fix the request.")
    errors: list[FieldProblem] | None = Field(
        default=None, description="Per field, for invalid input."
    )


def problem_responses(*statuses: int) -> dict[int | str, dict[str, Any]]:
    """OpenAPI `responses` entries: each status answers problem+json."""
    return {
        status: {
            "description": STATUS_MEANINGS[status],
            "content": {PROBLEM_JSON: {"schema": {"$ref": PROBLEM_SCHEMA_REF}}},
        }
        for status in statuses
    }


# Every route behind an API key can answer these (no key; role or feature instance; bad input).
AUTHENTICATED = problem_responses(400, 401, 403, 422)


def problem(
    status: int, title: str, detail: str, headers: dict[str, str] | None = None, **extra: object
) -> JSONResponse:
    body = {"type": "about:blank", "title": title, "status": status, "detail": detail, **extra}
    if status == 401:
        headers = {**(headers or {}), "WWW-Authenticate": "Bearer"}
    return JSONResponse(body, status_code=status, media_type=PROBLEM_JSON, headers=headers)


def problem_bytes(status: int, title: str, detail: str) -> bytes:
    """The body of `problem(…)` for code that writes raw HTTP (the protocol layer)."""
    body = {"type": "about:blank", "title": title, "status": status, "detail": detail}
    return json.dumps(body).encode()


def _describe_validation(error: RequestValidationError) -> tuple[str, list[dict[str, object]]]:
    parts = []
    fields = []
    for item in error.errors():
        location = ".".join(str(part) for part in item.get("loc", ()) if part != "body")
        parts.append(f"{location}: {item.get('msg')}")
        fields.append({"field": location, "message": item.get("msg")})
    return "; ".join(parts) or "invalid request", fields


CHARACTER_NOT_IN_REPERTOIRE = "22021"  # SQLSTATE of a NUL in PostgreSQL text
HTTP_METHODS = {"get", "put", "post", "delete", "options", "head", "patch", "trace"}


def allowed_methods(request: Request) -> str:
    """Every method the OpenAPI document lists for the request's path. Starlette's own `Allow`
    names only the first route that matched, while GET and POST of one path are two routes."""
    methods: set[str] = set()
    for template, operations in request.app.openapi()["paths"].items():
        pattern = re.sub(r"\\\{[^/]+?\\\}", "[^/]+", re.escape(template))
        if re.fullmatch(pattern, request.url.path):
            methods |= {method.upper() for method in operations if method in HTTP_METHODS}
    return ", ".join(sorted(methods))


def keep_for_errors(request: Request, headers: dict[str, str]) -> None:
    """Headers that an error answer to this request carries too: a route's CORS grant (the
    visitor routes, see agentur.api.visitor_cors), or a browser could not read the error."""
    request.state.error_headers = headers


def kept_for_errors(request: Request) -> dict[str, str]:
    return dict(getattr(request.state, "error_headers", None) or {})


def retry_after(request: Request, error: Exception | None = None) -> dict[str, str]:
    """`Retry-After`: the error's own, else the configured saturation default."""
    seconds = getattr(error, "retry_after_seconds", None)
    if seconds is None:
        seconds = tenant_limits(request).settings.retry_after_seconds
    return {"Retry-After": str(seconds)}


def pool_timeout_detail(request: Request) -> str:
    waited = request.app.state.runtime.settings.database_pool_timeout_seconds
    return (
        f"the server is saturated: no database connection came free within {waited:g} s "
        "(AGENTUR_DATABASE_POOL_TIMEOUT_SECONDS); retry shortly"
    )


def install_problem_handlers(app: FastAPI) -> None:
    @app.exception_handler(AgenturError)
    async def _domain(request: Request, error: AgenturError) -> JSONResponse:
        headers = kept_for_errors(request)
        if error.status_code in RETRY_LATER:
            headers |= retry_after(request, error)
        return problem(error.status_code, error.title, error.detail, headers)

    @app.exception_handler(PoolTimeoutError)
    async def _pool_timeout(request: Request, error: PoolTimeoutError) -> JSONResponse:
        # Every pooled connection stayed busy for the whole wait: saturation, not a fault.
        logger.warning("%s %s: %s", request.method, request.url.path, error)
        headers = kept_for_errors(request) | retry_after(request)
        return problem(503, "Service unavailable", pool_timeout_detail(request), headers)

    async def _database_unavailable(request: Request, error: Exception) -> JSONResponse:
        # Busy or restarting: a passing state, not a fault; the same request works later.
        reason = unavailable_reason(error)
        if reason is None:
            return await _unexpected(request, error)
        logger.warning("%s %s: %s (%s)", request.method, request.url.path, reason, error)
        headers = kept_for_errors(request) | retry_after(request)
        return problem(503, "Service unavailable", f"{reason}; retry shortly", headers)

    @app.exception_handler(RequestValidationError)
    async def _validation(request: Request, error: RequestValidationError) -> JSONResponse:
        detail, fields = _describe_validation(error)
        return problem(422, "Invalid input", detail, kept_for_errors(request), errors=fields)

    @app.exception_handler(StarletteHTTPException)
    async def _http(request: Request, error: StarletteHTTPException) -> JSONResponse:
        headers = kept_for_errors(request) | dict(error.headers or {})
        if error.status_code == 405:
            headers["Allow"] = allowed_methods(request)
        return problem(error.status_code, str(error.detail), str(error.detail), headers)

    @app.exception_handler(Exception)
    async def _unexpected(request: Request, error: Exception) -> JSONResponse:
        logger.exception("unhandled error on %s %s", request.method, request.url.path)
        return problem(500, "Internal error", "an unexpected error occurred; see the server log")

    @app.exception_handler(ConnectionError)
    async def _unreachable(request: Request, error: ConnectionError) -> JSONResponse:
        return await _database_unavailable(request, error)

    @app.exception_handler(DBAPIError)
    async def _database(request: Request, error: DBAPIError) -> JSONResponse:
        if unavailable_reason(error) is not None:
            return await _database_unavailable(request, error)
        # SQLSTATE class 22 is "data exception": a value the database cannot take, such as
        # text with a NUL character (PostgreSQL stores none). That is bad input, not a fault.
        state = str(getattr(error.orig, "sqlstate", "") or "")
        if state == CHARACTER_NOT_IN_REPERTOIRE:
            return problem(422, "Invalid input", "text must not contain NUL (U+0000) characters")
        if state.startswith("22"):
            reason = str(error.orig).splitlines()[0].removeprefix("<class ").split(">: ")[-1]
            return problem(422, "Invalid input", f"a value cannot be stored: {reason}")
        return await _unexpected(request, error)
