"""Domain errors. The web layer maps each to an HTTP status and a problem+json body;
the CLI prints its message on one line. Messages are specific and safe to show to the caller."""

from __future__ import annotations

from typing import Any, ClassVar


class AgenturError(Exception):
    """Base for errors whose message is meant for the caller. A kind declares its HTTP status
    and problem title in its class line: `class X(AgenturError, status_code=404, title="Not
    found")`; a kind that names neither keeps its base's."""

    status_code: ClassVar[int] = 400
    title: ClassVar[str] = "Bad request"

    def __init_subclass__(
        cls, *, status_code: int | None = None, title: str | None = None, **kwargs: Any
    ) -> None:
        super().__init_subclass__(**kwargs)
        if status_code is not None:
            cls.status_code = status_code
        if title is not None:
            cls.title = title

    def __init__(self, detail: str) -> None:
        super().__init__(detail)
        self.detail = detail


class NotFoundError(AgenturError, status_code=404, title="Not found"):
    """Also used for things that exist but belong to someone else: never reveal existence."""


class ConflictError(AgenturError, status_code=409, title="Conflict"):
    pass


class InvalidInputError(AgenturError, status_code=422, title="Invalid input"):
    pass


class TooLargeError(AgenturError, status_code=413, title="Content too large"):
    pass


class ForbiddenError(AgenturError, status_code=403, title="Forbidden"):
    pass


class AuthenticationError(AgenturError, status_code=401, title="Unauthorized"):
    pass


class BusyError(AgenturError, status_code=503, title="Service unavailable"):
    """The server is saturated right now; the same request may succeed after
    `retry_after_seconds` (sent as `Retry-After`)."""

    def __init__(self, detail: str, retry_after_seconds: int) -> None:
        super().__init__(detail)
        self.retry_after_seconds = retry_after_seconds


class TooManyRequestsError(BusyError, status_code=429, title="Too many requests"):
    """The caller's own share is used up (its mandate's limit, a visitor key's rate)."""
