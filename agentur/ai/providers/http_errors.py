"""Map HTTP failures of any vendor to `ProviderError`, the one error the gateway retries on.

Retryable: 408, 409 (OpenAI's "conflict, try again"), 425, 429, every 5xx (incl. Anthropic's
529 "overloaded"), timeouts, connection errors and broken streams. Everything else is the
caller's fault and retrying would fail again. The vendor's own message is kept (it says what
is wrong), API keys are scrubbed from it, the request is never echoed.
"""

from __future__ import annotations

import json
import re
import socket
import ssl
from datetime import UTC, datetime
from email.utils import parsedate_to_datetime
from typing import Any

import httpx

from agentur.ai.providers.base import ErrorKind, ProviderError

RETRYABLE_STATUSES = frozenset({408, 409, 425, 429})
MAX_MESSAGE_CHARS = 500
_DURATION = re.compile(r"^\s*(\d+(?:\.\d+)?)s\s*$")


def is_retryable_status(status: int) -> bool:
    return status in RETRYABLE_STATUSES or status >= 500


def parse_retry_after(value: str | None, *, now: datetime | None = None) -> float | None:
    """`Retry-After` as seconds: either a number of seconds or an HTTP date (RFC 9110)."""
    if not value or not value.strip():
        return None
    value = value.strip()
    try:
        return max(0.0, float(value))
    except ValueError:
        pass
    try:
        when = parsedate_to_datetime(value)
    except (TypeError, ValueError, IndexError):
        return None
    if when.tzinfo is None:
        when = when.replace(tzinfo=UTC)
    return max(0.0, (when - (now or datetime.now(UTC))).total_seconds())


def _retry_delay_from_body(payload: Any) -> float | None:
    """Google sends the wait as a google.rpc.RetryInfo detail (`"retryDelay": "7s"`)."""
    error = payload.get("error") if isinstance(payload, dict) else None
    details = error.get("details") if isinstance(error, dict) else None
    for detail in details if isinstance(details, list) else []:
        delay = detail.get("retryDelay") if isinstance(detail, dict) else None
        match = _DURATION.match(delay) if isinstance(delay, str) else None
        if match:
            return float(match.group(1))
    return None


def retry_after_seconds(headers: httpx.Headers, payload: Any = None) -> float | None:
    milliseconds = headers.get("retry-after-ms")
    if milliseconds:
        try:
            return max(0.0, float(milliseconds) / 1000)
        except ValueError:
            pass
    from_header = parse_retry_after(headers.get("retry-after"))
    return from_header if from_header is not None else _retry_delay_from_body(payload)


def vendor_message(payload: Any, fallback: str) -> str:
    """The human part of an error body: OpenAI/Google `error.message`, Anthropic
    `error.message`, Mistral `message` (sometimes an object), FastAPI-style `detail`."""
    candidates: list[Any] = []
    if isinstance(payload, dict):
        error = payload.get("error")
        if isinstance(error, dict):
            candidates.append(error.get("message"))
        elif isinstance(error, str):
            candidates.append(error)
        candidates += [payload.get("message"), payload.get("detail")]
    for candidate in candidates:
        if isinstance(candidate, str) and candidate.strip():
            return candidate.strip()
        if candidate:
            return json.dumps(candidate)
    return fallback.strip() or "(empty body)"


def scrub(text: str, secrets: tuple[str, ...]) -> str:
    for secret in secrets:
        if secret and len(secret) >= 4:
            text = text.replace(secret, "***")
    return text[:MAX_MESSAGE_CHARS]


def error_from_status(
    provider: str,
    status: int,
    headers: httpx.Headers,
    body: bytes,
    *,
    secrets: tuple[str, ...] = (),
    model: str | None = None,
    host: str | None = None,
) -> ProviderError:
    text = body.decode("utf-8", errors="replace")
    try:
        payload: Any = json.loads(text)
    except ValueError:
        payload = None
    retryable = is_retryable_status(status)
    return ProviderError(
        scrub(vendor_message(payload, text), secrets),
        provider=provider,
        status_code=status,
        retryable=retryable,
        retry_after_seconds=retry_after_seconds(headers, payload) if retryable else None,
        kind=ErrorKind.http_status,
        model=model,
        host=host,
    )


def _causes(error: BaseException) -> list[BaseException]:
    chain: list[BaseException] = []
    current: BaseException | None = error
    while current is not None and current not in chain:
        chain.append(current)
        current = current.__cause__ or current.__context__
    return chain


def transport_kind(error: httpx.HTTPError) -> ErrorKind:
    """The kind of a failure below HTTP, from the exception chain httpx keeps (the socket's
    own error is at its end)."""
    if isinstance(error, httpx.ConnectTimeout | httpx.PoolTimeout):
        return ErrorKind.connect_timeout
    if not isinstance(error, httpx.ConnectError):
        return ErrorKind.connection_broken
    for cause in _causes(error):
        if isinstance(cause, ssl.SSLError):
            return ErrorKind.tls
        if isinstance(cause, socket.gaierror):
            return ErrorKind.dns
        if isinstance(cause, ConnectionRefusedError):
            return ErrorKind.connection_refused
    return ErrorKind.connect_failed


def error_from_transport(
    provider: str, error: httpx.HTTPError, *, model: str | None = None, host: str | None = None
) -> ProviderError:
    # Nothing reached the server unless the connection broke later; every kind here is safe
    # to retry.
    return ProviderError(
        str(error) or type(error).__name__,
        provider=provider,
        retryable=True,
        kind=transport_kind(error),
        model=model,
        host=host,
    )
