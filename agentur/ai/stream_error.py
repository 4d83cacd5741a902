"""The event a stream ends with when its provider fails after text already reached the caller.

Such a stream is not restarted (the caller would see the text twice); the caller decides."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class StreamError:
    message: str
    model: str
    provider: str
    status_code: int | None = None
    retryable: bool = False
