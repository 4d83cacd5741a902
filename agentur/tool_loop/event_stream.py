"""A loop's events as an async iterator, in strict turns: the loop waits at each event until
the consumer asked for the next one, so the two never work at the same time (and never hold
two database connections at once) — the same order as if the loop yielded them itself."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator, Awaitable, Callable
from typing import Any

_END = object()

Sink = Callable[[Any], Awaitable[None]]


async def streamed(work: Callable[[Sink], Awaitable[None]]) -> AsyncIterator[Any]:
    """Runs `work(sink)` and yields what it hands the sink; its exception is raised here."""
    queue: asyncio.Queue[tuple[Any, asyncio.Future[None] | None]] = asyncio.Queue()

    async def sink(item: Any) -> None:
        handled = asyncio.get_running_loop().create_future()
        await queue.put((item, handled))
        await handled

    async def run() -> None:
        try:
            await work(sink)
        finally:
            queue.put_nowait((_END, None))

    task = asyncio.create_task(run())
    try:
        while True:
            item, handled = await queue.get()
            if item is _END:
                break
            try:
                yield item
            finally:
                if handled is not None and not handled.done():
                    handled.set_result(None)
        await task
    finally:
        if not task.done():
            task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await task
