"""Errors in OpenAI's shape (`{"error": {"message", "type", "param", "code"}}`).

OpenAI clients read only this shape (the SDK raises `NotFoundError`, `AuthenticationError`, …
from the status and shows `message`), so routes under `/openai/v1` answer it instead of
problem+json. A route class converts every error its handler raises, dependencies included."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any

from fastapi import Request, Response
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse
from fastapi.routing import APIRoute
from sqlalchemy.exc import TimeoutError as PoolTimeoutError

from agentur.ai.gateway_errors import ContextLengthExceededError
from agentur.api.problems import RETRY_LATER, pool_timeout_detail, retry_after
from agentur.errors import AgenturError
from agentur.storage.unavailable import unavailable_reason

# OpenAI's `type` per status; anything else is a server error.
ERROR_TYPES = {
    400: "invalid_request_error",
    401: "invalid_request_error",
    402: "insufficient_quota",
    403: "permission_error",
    404: "invalid_request_error",
    409: "invalid_request_error",
    413: "invalid_request_error",
    422: "invalid_request_error",
    429: "rate_limit_error",
}
ERROR_CODES = {401: "invalid_api_key", 402: "insufficient_quota", 429: "rate_limit_exceeded"}


class OpenAIError(Exception):
    """An error with OpenAI's fields, raised by the translation modules."""

    def __init__(
        self, status: int, message: str, *, param: str | None = None, code: str | None = None
    ) -> None:
        super().__init__(message)
        self.status = status
        self.message = message
        self.param = param
        self.code = code


def model_not_found(model: str) -> OpenAIError:
    """OpenAI's answer to a model that does not exist or is not the caller's."""
    return OpenAIError(
        404,
        f"The model `{model}` does not exist or you do not have access to it.",
        param="model",
        code="model_not_found",
    )


def invalid_url(method: str, path: str) -> OpenAIError:
    """OpenAI's answer to a path it does not serve."""
    return OpenAIError(404, f"Invalid URL ({method} {path})")


def error_body(status: int, message: str, param: str | None, code: str | None) -> dict[str, Any]:
    return {
        "error": {
            "message": message,
            "type": ERROR_TYPES.get(status, "server_error"),
            "param": param,
            "code": code if code is not None else ERROR_CODES.get(status),
        }
    }


def error_response(request: Request, error: Exception) -> JSONResponse | None:
    """The OpenAI-shaped answer to `error`, or None for errors this layer does not know."""
    if isinstance(error, OpenAIError):
        status, message, param, code = error.status, error.message, error.param, error.code
    elif isinstance(error, ContextLengthExceededError):
        status, message = error.status_code, error.detail
        param, code = "messages", "context_length_exceeded"
    elif isinstance(error, AgenturError):
        status, message, param, code = error.status_code, error.detail, None, None
    elif isinstance(error, PoolTimeoutError):
        status, message, param, code = 503, pool_timeout_detail(request), None, None
    elif (reason := unavailable_reason(error)) is not None:
        status, message, param, code = 503, f"{reason}; retry shortly", None, None
    elif isinstance(error, RequestValidationError):
        first = error.errors()[0] if error.errors() else {}
        location = [str(part) for part in first.get("loc", ()) if part != "body"]
        param = ".".join(location) or None
        status, message, code = 400, f"{param or 'request'}: {first.get('msg', 'invalid')}", None
    else:
        return None
    headers = {"WWW-Authenticate": "Bearer"} if status == 401 else {}
    if status in RETRY_LATER:
        headers |= retry_after(request, error)
    return JSONResponse(error_body(status, message, param, code), status, headers=headers)


class OpenAIErrorRoute(APIRoute):
    def get_route_handler(self) -> Callable[[Request], Awaitable[Response]]:
        handler = super().get_route_handler()

        async def handle(request: Request) -> Response:
            try:
                return await handler(request)
            except Exception as error:
                response = error_response(request, error)
                if response is None:
                    raise
                return response

        return handle
