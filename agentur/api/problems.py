"""RFC 9457 problem+json for every error the API returns."""

from __future__ import annotations

import logging

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse
from starlette.exceptions import HTTPException as StarletteHTTPException

from agentur.errors import AgenturError

logger = logging.getLogger(__name__)
PROBLEM_JSON = "application/problem+json"


def problem(status: int, title: str, detail: str, **extra: object) -> JSONResponse:
    body = {"type": "about:blank", "title": title, "status": status, "detail": detail, **extra}
    headers = {"WWW-Authenticate": "Bearer"} if status == 401 else None
    return JSONResponse(body, status_code=status, media_type=PROBLEM_JSON, headers=headers)


def _describe_validation(error: RequestValidationError) -> tuple[str, list[dict[str, object]]]:
    parts = []
    fields = []
    for item in error.errors():
        location = ".".join(str(part) for part in item.get("loc", ()) if part != "body")
        parts.append(f"{location}: {item.get('msg')}")
        fields.append({"field": location, "message": item.get("msg")})
    return "; ".join(parts) or "invalid request", fields


def install_problem_handlers(app: FastAPI) -> None:
    @app.exception_handler(AgenturError)
    async def _domain(_: Request, error: AgenturError) -> JSONResponse:
        return problem(error.status_code, error.title, error.detail)

    @app.exception_handler(RequestValidationError)
    async def _validation(_: Request, error: RequestValidationError) -> JSONResponse:
        detail, fields = _describe_validation(error)
        return problem(422, "Invalid input", detail, errors=fields)

    @app.exception_handler(StarletteHTTPException)
    async def _http(_: Request, error: StarletteHTTPException) -> JSONResponse:
        return problem(error.status_code, str(error.detail), str(error.detail))

    @app.exception_handler(Exception)
    async def _unexpected(request: Request, error: Exception) -> JSONResponse:
        logger.exception("unhandled error on %s %s", request.method, request.url.path)
        return problem(500, "Internal error", "an unexpected error occurred; see the server log")
