"""/v1/billing/usage — AI cost totals of the caller's mandate by model and operation."""

from __future__ import annotations

import re
from datetime import date, datetime
from typing import Annotated
from zoneinfo import ZoneInfo

from fastapi import APIRouter, Query
from pydantic import BaseModel, BeforeValidator, Field

from agentur.ai.billing.ledger import usage_totals
from agentur.ai.billing.usage_report import daily_usage, limits_status
from agentur.ai.mandate_ai_settings import load_mandate_ai_config
from agentur.api.dependencies import ContextDep, RuntimeDep, SessionDep
from agentur.api.problems import AUTHENTICATED
from agentur.context import get_request_now, utc_now
from agentur.errors import InvalidInputError

router = APIRouter(prefix="/billing", tags=["billing"], responses=AUTHENTICATED)


class UsageRow(BaseModel):
    model: str
    operation: str
    calls: int
    input_tokens: int
    output_tokens: int
    cost_chf: float


class UsageOut(BaseModel):
    items: list[UsageRow]
    total_cost_chf: float
    workflow_id: str | None
    start: datetime | None
    end: datetime | None


# RFC 3339, as the OpenAPI `date-time` format says: a time zone is required, and a number is
# not a date (pydantic alone would read `0.5` as a Unix time).
RFC3339 = re.compile(r"\d{4}-\d\d-\d\d[Tt]\d\d:\d\d:\d\d(\.\d+)?([Zz]|[+-]\d\d:\d\d)")


def _rfc3339(value: object) -> object:
    if isinstance(value, str) and RFC3339.fullmatch(value):
        return value
    raise ValueError("needs an RFC 3339 date-time with a time zone, e.g. 2025-01-01T00:00:00Z")


Timestamp = Annotated[datetime, BeforeValidator(_rfc3339)]


@router.get("/usage")
async def usage(
    context: ContextDep,
    session: SessionDep,
    workflow_id: str | None = None,
    start: Annotated[Timestamp | None, Query(alias="from")] = None,
    end: Annotated[Timestamp | None, Query(alias="to", description="After `from`.")] = None,
) -> UsageOut:
    """Totals over [from, to) — the mandate's own ledger only."""
    if start and end and end <= start:
        raise InvalidInputError("'to' must be after 'from'")
    rows = await usage_totals(
        session, context.mandate_id, workflow_id=workflow_id, start=start, end=end
    )
    return UsageOut(
        items=[UsageRow.model_validate(row, from_attributes=True) for row in rows],
        total_cost_chf=sum(row.cost_chf for row in rows),
        workflow_id=workflow_id,
        start=start,
        end=end,
    )


MAX_REPORT_DAYS = 92  # one query per day; a quarter is what the Usage screen offers


class ModelUsageOut(BaseModel):
    model: str
    calls: int
    input_tokens: int
    output_tokens: int
    cost_chf: float


class DayUsageOut(BaseModel):
    date: date
    models: list[ModelUsageOut]
    cost_chf: float


class DailyUsageOut(BaseModel):
    timezone: str = Field(description="Days run midnight to midnight here (X-User-Timezone).")
    days: list[DayUsageOut] = Field(description="Newest first, today included.")
    total_cost_chf: float


class LimitsOut(BaseModel):
    monthly_limit_chf: float | None = Field(description="null: no monthly limit.")
    spent_this_month_chf: float
    remaining_this_month_chf: float | None
    balance_chf: float | None = Field(description="Prepaid balance left; null: none is kept.")
    month_start: datetime = Field(description="The month the limit counts from (UTC).")


@router.get("/daily")
async def usage_per_day(
    context: ContextDep,
    session: SessionDep,
    days: Annotated[int, Query(ge=1, le=MAX_REPORT_DAYS)] = 14,
) -> DailyUsageOut:
    """Cost in CHF per day and model over the last `days` days, in the caller's time zone."""
    report = await daily_usage(
        session,
        context.mandate_id,
        last_day=get_request_now(context).date(),
        days=days,
        zone=ZoneInfo(context.timezone),
    )
    return DailyUsageOut(
        timezone=context.timezone,
        days=[
            DayUsageOut(
                date=day.day,
                models=[ModelUsageOut.model_validate(m, from_attributes=True) for m in day.models],
                cost_chf=day.cost_chf,
            )
            for day in report
        ],
        total_cost_chf=sum(day.cost_chf for day in report),
    )


@router.get("/limits")
async def usage_limits(context: ContextDep, session: SessionDep, runtime: RuntimeDep) -> LimitsOut:
    """The mandate's monthly limit and prepaid balance, and what is left of them."""
    config = await load_mandate_ai_config(session, context.mandate_id, runtime.ai.settings)
    status = await limits_status(session, context.mandate_id, config, utc_now())
    return LimitsOut.model_validate(status, from_attributes=True)
