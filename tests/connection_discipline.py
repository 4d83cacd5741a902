"""Checks that a request holds at most one pooled database connection at a time.

`DisciplinedApp` wraps an ASGI app: each request it passes on gets its own id in a context
variable, which every task the request starts inherits (a streamed body, an agent run, a
search's vector leg). `ConnectionDiscipline` listens to the pool's checkouts and check-ins and
records a violation whenever a request that holds a connection checks out another one — the
pattern that exhausts the pool under concurrency: every request holds one and waits for a
second that no one returns. A checkout through `agentur.storage.database.connect_if_idle` is
allowed: it never waits (it takes an idle connection or none).
"""

from __future__ import annotations

import itertools
from contextvars import ContextVar
from dataclasses import dataclass, field
from typing import Any

import greenlet
from sqlalchemy import event
from sqlalchemy.ext.asyncio import AsyncEngine

from agentur.storage.database import checkout_is_spare

_REQUEST: ContextVar[int | None] = ContextVar("test_request", default=None)
_IDS = itertools.count(1)


def _where() -> str:
    """The application's call path to this checkout, innermost last. A pool event runs in
    SQLAlchemy's greenlet, whose own stack shows only SQLAlchemy: the calling coroutines are
    the frames of the greenlet that is suspended waiting for it."""
    current = greenlet.getcurrent()
    frame = current.parent.gr_frame if current.parent is not None else None
    lines: list[str] = []
    while frame is not None:
        name = frame.f_code.co_filename
        if "/agentur/" in name and "/site-packages/" not in name:
            lines.append(f"{name.split('/agentur/', 1)[1]}:{frame.f_lineno} {frame.f_code.co_name}")
        frame = frame.f_back
    return "\n    ".join(reversed(lines[:12]))


@dataclass
class ConnectionDiscipline:
    held: dict[int, dict[int, str]] = field(default_factory=dict)  # request → record → where
    owner: dict[int, int] = field(default_factory=dict)  # connection record → request
    violations: list[str] = field(default_factory=list)
    checkouts: int = 0

    def watch(self, engine: AsyncEngine) -> None:
        event.listen(engine.sync_engine, "checkout", self._checkout)
        event.listen(engine.sync_engine, "checkin", self._checkin)

    def forget(self, engine: AsyncEngine) -> None:
        event.remove(engine.sync_engine, "checkout", self._checkout)
        event.remove(engine.sync_engine, "checkin", self._checkin)

    def _checkout(self, _dbapi: Any, record: Any, _proxy: Any) -> None:
        request = _REQUEST.get()
        if request is None:
            return
        self.checkouts += 1
        where = _where()
        holding = self.held.setdefault(request, {})
        if holding and not checkout_is_spare():
            first = next(iter(holding.values()))
            self.violations.append(
                f"request {request} checked out a second connection at\n    {where}\n"
                f"  while holding one checked out at\n    {first}"
            )
        holding[id(record)] = where
        self.owner[id(record)] = request

    def _checkin(self, _dbapi: Any, record: Any) -> None:
        request = self.owner.pop(id(record), None)
        if request is not None:
            self.held.get(request, {}).pop(id(record), None)

    def report(self) -> str:
        return "\n".join(self.violations)


class DisciplinedApp:
    """The app, with each request tagged so `ConnectionDiscipline` can tell them apart."""

    def __init__(self, app: Any) -> None:
        self.app = app

    def __getattr__(self, name: str) -> Any:
        return getattr(self.app, name)  # `state`, `openapi`, … of the app itself

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        token = _REQUEST.set(next(_IDS))
        try:
            await self.app(scope, receive, send)
        finally:
            _REQUEST.reset(token)
