"""Ledger rows (one per billed call) and the queries over them. Every query filters by mandate."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, datetime

from sqlalchemy import Select, func, select, update
from sqlalchemy.ext.asyncio import AsyncSession

from agentur.storage.models.ai import AiLedgerEntry, MandateAiSettings


@dataclass(frozen=True, slots=True)
class LedgerRecord:
    mandate_id: str
    user_id: str
    workflow_id: str | None
    operation: str
    model: str
    provider: str
    input_tokens: int
    output_tokens: int
    cached_tokens: int
    cache_write_tokens: int
    cost_usd: float
    cost_chf: float
    usd_to_chf: float


@dataclass(frozen=True, slots=True)
class UsageTotal:
    model: str
    operation: str
    calls: int
    input_tokens: int
    output_tokens: int
    cost_chf: float


def month_start(now: datetime) -> datetime:
    now = now.astimezone(UTC)
    return now.replace(day=1, hour=0, minute=0, second=0, microsecond=0)


async def record_call(session: AsyncSession, record: LedgerRecord) -> None:
    """Adds the row and deducts the cost from a kept balance (in the caller's transaction)."""
    session.add(AiLedgerEntry(**_fields(record)))
    if record.cost_chf:
        await session.execute(
            update(MandateAiSettings)
            .where(
                MandateAiSettings.mandate_id == record.mandate_id,
                MandateAiSettings.balance_chf.is_not(None),
            )
            .values(balance_chf=MandateAiSettings.balance_chf - record.cost_chf)
        )


def _fields(record: LedgerRecord) -> dict[str, object]:
    return {name: getattr(record, name) for name in LedgerRecord.__slots__}


def spent_since(mandate_id: str, since: datetime) -> Select[tuple[float]]:
    """The mandate's ledger total since `since` (CHF), as a query to embed or run."""
    return select(func.coalesce(func.sum(AiLedgerEntry.cost_chf), 0.0)).where(
        AiLedgerEntry.mandate_id == mandate_id, AiLedgerEntry.created_at >= since
    )


async def usage_totals(
    session: AsyncSession,
    mandate_id: str,
    *,
    workflow_id: str | None = None,
    start: datetime | None = None,
    end: datetime | None = None,
) -> list[UsageTotal]:
    query = select(
        AiLedgerEntry.model,
        AiLedgerEntry.operation,
        func.count(),
        func.coalesce(func.sum(AiLedgerEntry.input_tokens), 0),
        func.coalesce(func.sum(AiLedgerEntry.output_tokens), 0),
        func.coalesce(func.sum(AiLedgerEntry.cost_chf), 0.0),
    ).where(AiLedgerEntry.mandate_id == mandate_id)
    if workflow_id is not None:
        query = query.where(AiLedgerEntry.workflow_id == workflow_id)
    if start is not None:
        query = query.where(AiLedgerEntry.created_at >= start)
    if end is not None:
        query = query.where(AiLedgerEntry.created_at < end)
    query = query.group_by(AiLedgerEntry.model, AiLedgerEntry.operation).order_by(
        AiLedgerEntry.model, AiLedgerEntry.operation
    )
    rows = (await session.execute(query)).all()
    return [
        UsageTotal(model, operation, int(calls), int(tin), int(tout), float(cost))
        for model, operation, calls, tin, tout, cost in rows
    ]
