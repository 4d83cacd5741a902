"""What every provider adapter has: a name and its models. What it can do is one narrow
interface per kind of model (`agentur.ai.model_kinds`), each implemented only where offered.

Adapters speak one wire format and report raw results (`model_reply`); the gateway
(`AiService`) adds neutralization, billing, retries, fallback and cost. Adapters raise
`ProviderError` with `retryable` set for 429/5xx/timeouts so the gateway can decide.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from enum import StrEnum
from typing import Any, Protocol, runtime_checkable

from agentur.ai.messages import AiResponse, ToolCall, Usage
from agentur.ai.model_spec import ModelSpec


class ErrorKind(StrEnum):
    """What went wrong, in words a person debugging a connection recognises."""

    connection_refused = "connection refused"
    dns = "DNS lookup failed"
    tls = "TLS handshake failed"
    connect_failed = "cannot connect"
    connect_timeout = "connect timeout"
    # No byte of the reply yet: the server may still be reading the prompt (not retried
    # on the same server, a retry would start the prompt over).
    first_token_timeout = "time-to-first-token timeout"
    idle_timeout = "idle timeout"
    # A non-streamed call got no reply in time (its first byte comes with the whole answer).
    reply_timeout = "reply timeout"
    http_status = "HTTP status"
    connection_broken = "connection broken"
    stream_broken = "stream broken"
    stream_error = "error in stream"
    bad_reply = "unreadable reply"
    unsupported = "not supported"
    bad_request = "unusable request"
    other = "failed"


class ProviderError(Exception):
    """One failed provider call. `str()` names provider, model, host and kind, then the detail
    (for HTTP errors the vendor's own message, with API keys scrubbed)."""

    def __init__(
        self,
        message: str,
        *,
        provider: str,
        status_code: int | None = None,
        retryable: bool = False,
        retry_after_seconds: float | None = None,
        kind: ErrorKind = ErrorKind.other,
        model: str | None = None,
        host: str | None = None,
    ) -> None:
        super().__init__(message)
        self.detail = message
        self.provider = provider
        self.status_code = status_code
        self.retryable = retryable
        self.retry_after_seconds = retry_after_seconds
        self.kind = kind
        self.model = model
        self.host = host

    @property
    def where(self) -> str:
        """`provider model at host` — as much of it as is known."""
        where = " ".join(part for part in (self.provider, self.model) if part)
        return f"{where} at {self.host}" if self.host else where

    @property
    def summary(self) -> str:
        """Where and what, without the vendor's message (which may echo prompt content): the
        form for logs."""
        kind = f"HTTP {self.status_code}" if self.status_code else self.kind.value
        return f"{self.where}: {kind}"

    def __str__(self) -> str:
        return f"{self.summary}: {self.detail}" if self.detail else self.summary


# Optional request parameters (`CallOptions.response_format` and the `Sampling` fields) an
# adapter's wire format carries natively; an adapter lists its own in `NATIVE_PARAMETERS`.
OPTIONAL_PARAMETERS = frozenset(
    {"response_format", "top_p", "stop", "seed", "presence_penalty", "frequency_penalty"}
)


def native_parameters(provider: object) -> frozenset[str]:
    """What `provider` sends on instead of approximating or dropping it (none if unsaid)."""
    return frozenset(getattr(provider, "NATIVE_PARAMETERS", ()))


@runtime_checkable
class ModelProvider(Protocol):
    name: str

    def models(self) -> list[ModelSpec]:
        """The models this provider offers, as configured."""
        ...


def model_reply(
    provider: str,
    model: ModelSpec,
    started: float,
    text: str,
    usage: Usage,
    *,
    tool_calls: Sequence[ToolCall] = (),
    finish_reason: str | None = None,
    reported_model: Any = None,
    reported_id: Any = None,
    **extra: Any,
) -> AiResponse:
    """A reply as every adapter reports it: no cost (the gateway prices it), the latency since
    `started` (`time.perf_counter()`), the finish reason `tool_calls` when calls came and none
    is given, else `stop`; the vendor's own model name and response id when it sent text."""
    return AiResponse(
        text=text,
        tool_calls=tuple(tool_calls),
        usage=usage,
        cost_chf=0.0,
        model=model.id,
        provider=provider,
        latency_ms=(time.perf_counter() - started) * 1000,
        finish_reason=finish_reason or ("tool_calls" if tool_calls else "stop"),
        response_model=_text_or_none(reported_model),
        response_id=_text_or_none(reported_id),
        **extra,
    )


def _text_or_none(value: Any) -> str | None:
    return value if isinstance(value, str) and value else None
