"""Domain errors. The web layer maps each to an HTTP status and a problem+json body;
the CLI prints its message on one line. Messages are specific and safe to show to the caller."""

from __future__ import annotations


class AgenturError(Exception):
    """Base for errors whose message is meant for the caller."""

    status_code = 400
    title = "Bad request"

    def __init__(self, detail: str) -> None:
        super().__init__(detail)
        self.detail = detail


class NotFoundError(AgenturError):
    # Also used for things that exist but belong to someone else: never reveal existence.
    status_code = 404
    title = "Not found"


class ConflictError(AgenturError):
    status_code = 409
    title = "Conflict"


class InvalidInputError(AgenturError):
    status_code = 422
    title = "Invalid input"


class TooLargeError(AgenturError):
    status_code = 413
    title = "Content too large"


class ForbiddenError(AgenturError):
    status_code = 403
    title = "Forbidden"


class AuthenticationError(AgenturError):
    status_code = 401
    title = "Unauthorized"


class BusyError(AgenturError):
    """The server is saturated right now; the same request may succeed after
    `retry_after_seconds` (sent as `Retry-After`)."""

    status_code = 503
    title = "Service unavailable"

    def __init__(self, detail: str, retry_after_seconds: int) -> None:
        super().__init__(detail)
        self.retry_after_seconds = retry_after_seconds


class TooManyRequestsError(BusyError):
    """The caller's own share is used up (its mandate's limit, a visitor key's rate)."""

    status_code = 429
    title = "Too many requests"
