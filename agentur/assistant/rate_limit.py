"""The per-key rate limit of publishable visitor keys, shared by every worker.

Counted in the database per calendar minute (`visitor_rate_windows`), one atomic upsert per
message. The previous minute counts with the share of it that still lies within the last 60
seconds — the usual sliding-window estimate — so a burst across a minute boundary does not get
twice the limit. A refused message is not counted.
"""

from __future__ import annotations

import math
import time

from sqlalchemy import delete, select
from sqlalchemy.dialects.postgresql import insert as pg_insert
from sqlalchemy.dialects.sqlite import insert as sqlite_insert

from agentur.errors import TooManyRequestsError
from agentur.storage.database import Database
from agentur.storage.models.assistant import VisitorRateWindow

WINDOW_SECONDS = 60


class RateLimitedError(TooManyRequestsError):
    """A publishable key sent more messages than its rate per minute."""


class VisitorRateLimit:
    def __init__(self, database: Database) -> None:
        self.database = database
        self._insert = sqlite_insert if database.is_sqlite else pg_insert
        self._swept_window = -1  # old windows are deleted once per minute per worker

    async def check(self, key_id: str, per_minute: int, now: float | None = None) -> None:
        """Counts one message of `key_id`; `RateLimitedError` (nothing counted) above the limit."""
        now = time.time() if now is None else now
        window = int(now // WINDOW_SECONDS)
        still_inside = 1.0 - (now % WINDOW_SECONDS) / WINDOW_SECONDS
        rows = VisitorRateWindow
        async with self.database.transaction() as session:
            previous = await session.scalar(
                select(rows.hits).where(rows.key_id == key_id, rows.window == window - 1)
            )
            carried = (previous or 0) * still_inside
            counted = None
            if carried + 1 <= per_minute:
                upsert = self._insert(rows).values(key_id=key_id, window=window, hits=1)
                upsert = upsert.on_conflict_do_update(
                    index_elements=[rows.key_id, rows.window],
                    set_={"hits": rows.hits + 1},
                    where=rows.hits + carried + 1 <= per_minute,
                ).returning(rows.hits)
                counted = (await session.execute(upsert)).scalar()
            if window != self._swept_window:
                await session.execute(delete(rows).where(rows.window < window - 1))
                self._swept_window = window
        if counted is None:
            # One message's share of the minute: about when the sliding window lets one more in.
            raise RateLimitedError(
                f"at most {per_minute} messages per minute for this key",
                math.ceil(WINDOW_SECONDS / per_minute),
            )
