"""Retries with exponential backoff and jitter.

Retried: 429 (honouring Retry-After), 5xx, connect and idle timeouts, broken connections and
streams — what adapters mark `retryable`. Other 4xx are not retried: the same request would fail
again. Nor is a call that got no reply in time: the server may still be reading the prompt, and
a retry would start it over. Time limits live in the HTTP transport, one per phase. After the
retries of one model the gateway falls back to the next ranked model."""

from __future__ import annotations

import asyncio
import random
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import TypeVar

import httpx

from agentur.ai.providers.base import ProviderError
from agentur.ai.providers.http_errors import error_from_transport

T = TypeVar("T")


@dataclass(frozen=True, slots=True)
class RetryPolicy:
    max_retries: int = 2
    base_delay_seconds: float = 0.5
    max_delay_seconds: float = 20.0

    def delay(self, attempt: int, error: ProviderError, rng: random.Random | None = None) -> float:
        """Seconds to wait before retry number `attempt` (1-based)."""
        if error.retry_after_seconds is not None:
            return min(max(error.retry_after_seconds, 0.0), self.max_delay_seconds)
        ceiling = min(self.base_delay_seconds * 2 ** (attempt - 1), self.max_delay_seconds)
        # "Full jitter": spreads retries of many clients hitting the same limit.
        return (rng or random).uniform(ceiling / 2, ceiling)


def as_provider_error(
    error: BaseException, provider: str, model: str | None = None
) -> ProviderError | None:
    """A provider failure naming the model; transport failures an adapter let through become
    retryable provider errors."""
    if isinstance(error, ProviderError):
        error.model = error.model or model
        return error
    if isinstance(error, httpx.HTTPError):
        return error_from_transport(provider, error, model=model)
    return None


Sleep = Callable[[float], Awaitable[None]]


async def call_with_retries(
    attempt: Callable[[], Awaitable[T]],
    policy: RetryPolicy,
    *,
    provider: str,
    model: str | None = None,
    sleep: Sleep = asyncio.sleep,
    on_retry: Callable[[ProviderError, int], None] | None = None,
) -> T:
    """Runs `attempt` until it succeeds, a non-retryable error occurs, or retries run out;
    raises the last `ProviderError`."""
    tries = 0
    while True:
        try:
            return await attempt()
        except Exception as raw:  # noqa: BLE001 — narrowed by as_provider_error
            error = as_provider_error(raw, provider, model)
            if error is None:
                raise
            tries += 1
            if not error.retryable or tries > policy.max_retries:
                if error is raw:
                    raise
                raise error from raw
            if on_retry is not None:
                on_retry(error, tries)
            await sleep(policy.delay(tries, error))
