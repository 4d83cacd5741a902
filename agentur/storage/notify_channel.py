"""PostgreSQL LISTEN/NOTIFY on one channel: a short text published by any worker reaches
every worker that subscribed (each receives its own publications too).

The listening side holds one dedicated connection per channel and worker, outside the pool;
when it drops it is re-established with a growing pause. A message published while a worker
is reconnecting does not reach that worker — callers treat delivery as best effort and keep
the durable state (e.g. a run's status) in tables.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable
from typing import Any

import asyncpg
from sqlalchemy import text

from agentur.storage.database import Database

logger = logging.getLogger(__name__)

RECONNECT_MAX_SECONDS = 30.0


class NotifyChannel:
    def __init__(self, database: Database, channel: str) -> None:
        if database.is_sqlite:
            raise ValueError("LISTEN/NOTIFY needs PostgreSQL; SQLite serves one process")
        self.database = database
        self.channel = channel
        self._callbacks: list[Callable[[str], None]] = []
        self._connection: asyncpg.Connection | None = None
        self._reconnect: asyncio.Task[None] | None = None
        self._closed = False

    async def publish(self, payload: str) -> None:
        async with self.database.transaction() as session:
            await session.execute(
                text("SELECT pg_notify(:channel, :payload)"),
                {"channel": self.channel, "payload": payload},
            )

    async def subscribe(self, callback: Callable[[str], None]) -> None:
        """`callback(payload)` for every message from now on (listening once this returns)."""
        self._callbacks.append(callback)
        if self._connection is None:
            await self._listen()

    def _dsn(self) -> str:
        url = self.database.engine.url.set(drivername="postgresql")
        return url.render_as_string(hide_password=False)

    async def _listen(self) -> None:
        connection = await asyncpg.connect(self._dsn())
        await connection.add_listener(self.channel, self._deliver)
        connection.add_termination_listener(self._lost)
        self._connection = connection

    def _deliver(self, _connection: Any, _pid: int, _channel: str, payload: str) -> None:
        for callback in self._callbacks:
            try:
                callback(payload)
            except Exception:  # one failing subscriber must not silence the others
                logger.exception("subscriber of %s failed", self.channel)

    def _lost(self, _connection: Any) -> None:
        self._connection = None
        if not self._closed and self._reconnect is None:
            self._reconnect = asyncio.get_running_loop().create_task(self._reconnect_loop())

    async def _reconnect_loop(self) -> None:
        pause = 0.5
        try:
            while not self._closed and self._connection is None:
                await asyncio.sleep(pause)
                try:
                    await self._listen()
                    logger.info("listening on %s again", self.channel)
                except (OSError, asyncpg.PostgresError) as error:
                    pause = min(pause * 2, RECONNECT_MAX_SECONDS)
                    logger.warning("LISTEN %s failed (%s); retrying", self.channel, error)
        finally:
            self._reconnect = None

    async def aclose(self) -> None:
        self._closed = True
        if self._reconnect is not None:
            self._reconnect.cancel()
        if self._connection is not None:
            connection, self._connection = self._connection, None
            await connection.close()
