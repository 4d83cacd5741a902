"""A per-key sliding-window rate limit for publishable visitor keys.

In-process by design: each worker counts on its own, so N workers allow up to N× the limit.
That bounds abuse of a key that is public by nature without needing a shared store.
"""

from __future__ import annotations

import time
from collections import defaultdict, deque

from agentur.errors import AgenturError

WINDOW_SECONDS = 60.0


class RateLimitedError(AgenturError):
    status_code = 429
    title = "Too many requests"


class SlidingWindowLimiter:
    def __init__(self) -> None:
        self._hits: dict[str, deque[float]] = defaultdict(deque)

    def check(self, key: str, per_minute: int, now: float | None = None) -> None:
        now = time.monotonic() if now is None else now
        hits = self._hits[key]
        while hits and hits[0] <= now - WINDOW_SECONDS:
            hits.popleft()
        if len(hits) >= per_minute:
            raise RateLimitedError(f"at most {per_minute} messages per minute for this key")
        hits.append(now)
