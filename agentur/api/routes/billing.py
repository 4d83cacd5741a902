"""/v1/billing/usage — AI cost totals of the caller's mandate by model and operation (G5)."""

from __future__ import annotations

import re
from datetime import datetime
from typing import Annotated

from fastapi import APIRouter, Query
from pydantic import BaseModel, BeforeValidator

from agentur.ai.billing.ledger import usage_totals
from agentur.api.dependencies import ContextDep, SessionDep
from agentur.api.problems import AUTHENTICATED
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
