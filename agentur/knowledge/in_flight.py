"""One group of files embedding and being written in the background while the indexer claims
and chunks the next group (the pipelining `FileIndexer.index_files` does)."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Awaitable

from agentur.knowledge.write_index import IndexOutcome


class InFlight:
    """At most one group embedding and being written in the background, so the indexing
    process claims and chunks the next files while the worker process embeds."""

    def __init__(self) -> None:
        self.task: asyncio.Future[dict[str, IndexOutcome]] | None = None
        self.done: dict[str, IndexOutcome] = {}

    async def start(self, work: Awaitable[dict[str, IndexOutcome]]) -> None:
        await self.drain()
        self.task = asyncio.ensure_future(work)

    async def drain(self) -> None:
        if self.task is not None:
            task, self.task = self.task, None
            self.done.update(await task)

    async def cancel(self) -> None:
        if self.task is not None and not self.task.done():
            self.task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self.task
