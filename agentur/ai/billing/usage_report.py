"""What the Usage screen shows: AI cost per day and model in the caller's time zone,
and the mandate's limits with what is left of them this month."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date, datetime, time, timedelta
from zoneinfo import ZoneInfo

from sqlalchemy.ext.asyncio import AsyncSession

from agentur.ai.billing.ledger import month_start, spent_since, usage_totals
from agentur.ai.mandate_ai_settings import MandateAiConfig


@dataclass(frozen=True, slots=True)
class ModelUsage:
    model: str
    calls: int
    input_tokens: int
    output_tokens: int
    cost_chf: float


@dataclass(frozen=True, slots=True)
class DayUsage:
    day: date
    models: list[ModelUsage]
    cost_chf: float


@dataclass(frozen=True, slots=True)
class LimitsStatus:
    monthly_limit_chf: float | None
    spent_this_month_chf: float
    remaining_this_month_chf: float | None
    balance_chf: float | None
    month_start: datetime


async def daily_usage(
    session: AsyncSession, mandate_id: str, *, last_day: date, days: int, zone: ZoneInfo
) -> list[DayUsage]:
    """The `days` days up to `last_day`, newest first; a day runs from midnight to midnight
    in `zone`. One indexed range query per day (mandate, created_at) rather than a date
    function per dialect: SQLite and PostgreSQL agree on ranges, and the days stay exact
    across daylight-saving changes."""
    result = []
    for back in range(days):
        day = last_day - timedelta(days=back)
        start = datetime.combine(day, time(), zone)
        end = datetime.combine(day + timedelta(days=1), time(), zone)
        models: dict[str, ModelUsage] = {}
        for row in await usage_totals(session, mandate_id, start=start, end=end):
            seen = models.get(row.model, ModelUsage(row.model, 0, 0, 0, 0.0))
            models[row.model] = ModelUsage(
                row.model,
                seen.calls + row.calls,
                seen.input_tokens + row.input_tokens,
                seen.output_tokens + row.output_tokens,
                seen.cost_chf + row.cost_chf,
            )
        items = sorted(models.values(), key=lambda item: item.model)
        result.append(DayUsage(day, items, sum(item.cost_chf for item in items)))
    return result


async def limits_status(
    session: AsyncSession, mandate_id: str, config: MandateAiConfig, now: datetime
) -> LimitsStatus:
    since = month_start(now)
    spent = float(await session.scalar(spent_since(mandate_id, since)) or 0.0)
    limit = config.monthly_limit_chf
    return LimitsStatus(
        monthly_limit_chf=limit,
        spent_this_month_chf=spent,
        remaining_this_month_chf=None if limit is None else max(0.0, limit - spent),
        balance_chf=config.balance_chf,
        month_start=since,
    )
