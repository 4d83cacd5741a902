"""Who a budget hold belongs to, beyond its mandate: the agent run whose task made the call.

A worker that dies mid-run leaves its holds behind; whoever finds the run dead releases the
holds the run made instead of waiting for them to expire. The gateway is called from deep
inside a run (model rounds, sub-agents, tools), so the holder travels in a ContextVar set once
for the run's task rather than through every call signature."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar

from sqlalchemy import delete
from sqlalchemy.ext.asyncio import AsyncSession

from agentur.storage.models.ai import AiReservation

_holder: ContextVar[str | None] = ContextVar("agentur_billing_holder", default=None)


def current_holder() -> str | None:
    return _holder.get()


@contextmanager
def holding_for(holder: str) -> Iterator[None]:
    """Holds made inside the block (and tasks it starts) are marked as `holder`'s."""
    token = _holder.set(holder)
    try:
        yield
    finally:
        _holder.reset(token)


async def release_holds(session: AsyncSession, holders: list[str]) -> None:
    """Drop every hold the given holders made (their calls will never be charged)."""
    if holders:
        await session.execute(delete(AiReservation).where(AiReservation.holder.in_(holders)))
