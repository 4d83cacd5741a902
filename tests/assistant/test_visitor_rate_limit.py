"""The visitor rate limit lives in the database: two limiters (two workers) share one count,
a refused message is not counted, the previous minute weighs in by how much of it is left."""

from __future__ import annotations

import asyncio

from sqlalchemy import select

from agentur.assistant.rate_limit import RateLimitedError, VisitorRateLimit
from agentur.runtime import Runtime
from agentur.storage.models.assistant import VisitorRateWindow

MINUTE = 60.0 * 1_000  # minute 1000 starts here (seconds since the epoch)


async def _outcomes(limiters: list[VisitorRateLimit], times: list[float], limit: int) -> list[bool]:
    results = []
    for index, now in enumerate(times):
        try:
            await limiters[index % len(limiters)].check("key-1", limit, now)
            results.append(True)
        except RateLimitedError:
            results.append(False)
    return results


async def test_two_workers_share_one_count(runtime: Runtime) -> None:
    workers = [VisitorRateLimit(runtime.database), VisitorRateLimit(runtime.database)]
    assert await _outcomes(workers, [MINUTE + i for i in range(5)], 3) == [
        True,
        True,
        True,
        False,
        False,
    ]
    # Another key has its own count.
    await workers[0].check("key-2", 3, MINUTE + 5)


async def test_concurrent_messages_never_exceed_the_limit(runtime: Runtime) -> None:
    workers = [VisitorRateLimit(runtime.database), VisitorRateLimit(runtime.database)]

    async def one(index: int) -> bool:
        try:
            await workers[index % 2].check("key-1", 4, MINUTE + 1)
            return True
        except RateLimitedError:
            return False

    assert sum(await asyncio.gather(*(one(i) for i in range(12)))) == 4


async def test_the_previous_minute_counts_by_its_remaining_share(runtime: Runtime) -> None:
    limiter = VisitorRateLimit(runtime.database)
    assert await _outcomes([limiter], [MINUTE + 50 + i for i in range(4)], 4) == [True] * 4
    # 15 s into the next minute, 3/4 of the previous one is still inside: 4 * 0.75 = 3 carried.
    assert await _outcomes([limiter], [MINUTE + 60 + 15, MINUTE + 60 + 16], 4) == [True, False]
    # Two minutes later the old windows are gone from the table.
    limiter._swept_window = -1  # as after a restart
    await limiter.check("key-1", 4, MINUTE + 180 + 1)
    async with runtime.database.session() as session:
        windows = list(await session.scalars(select(VisitorRateWindow.window)))
    assert windows == [1_003]


async def test_a_refused_message_is_not_counted(runtime: Runtime) -> None:
    limiter = VisitorRateLimit(runtime.database)
    assert await _outcomes([limiter], [MINUTE + 1, MINUTE + 2, MINUTE + 3], 1) == [
        True,
        False,
        False,
    ]
    async with runtime.database.session() as session:
        assert await session.scalar(select(VisitorRateWindow.hits)) == 1
