"""Map HTTP failures of any vendor to `ProviderError`, the one error the gateway retries on.

Retryable: 408, 409 (OpenAI's "conflict, try again"), 425, 429, every 5xx (incl. Anthropic's
529 "overloaded"), timeouts, connection errors and broken streams. Everything else is the
caller's fault and retrying would fail again. The vendor's own message is kept (it says what
is wrong), API keys are scrubbed from it, the request is never echoed.
"""

from __future__ import annotations

import json
import re
from datetime import UTC, datetime
from email.utils import parsedate_to_datetime
from typing import Any

import httpx

from agentur.ai.providers.base import ProviderError

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
) -> ProviderError:
    text = body.decode("utf-8", errors="replace")
    try:
        payload: Any = json.loads(text)
    except ValueError:
        payload = None
    retryable = is_retryable_status(status)
    message = scrub(vendor_message(payload, text), secrets)
    return ProviderError(
        f"{provider}: HTTP {status}: {message}",
        provider=provider,
        status_code=status,
        retryable=retryable,
        retry_after_seconds=retry_after_seconds(headers, payload) if retryable else None,
    )


def error_from_transport(provider: str, error: httpx.HTTPError) -> ProviderError:
    if isinstance(error, httpx.TimeoutException):
        reason = f"timed out ({type(error).__name__})"
    elif isinstance(error, httpx.ConnectError):
        reason = "cannot connect"
    else:
        reason = f"connection broken ({type(error).__name__}: {error})"
    return ProviderError(f"{provider}: {reason}", provider=provider, retryable=True)


def broken_stream(provider: str, why: str) -> ProviderError:
    return ProviderError(f"{provider}: stream broken: {why}", provider=provider, retryable=True)
