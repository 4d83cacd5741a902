"""/v1/billing/usage — AI cost totals of the caller's mandate by model and operation (G5)."""

from __future__ import annotations

from datetime import datetime
from typing import Annotated

from fastapi import APIRouter, Query
from pydantic import BaseModel

from agentur.ai.billing.ledger import usage_totals
from agentur.api.dependencies import ContextDep, SessionDep
from agentur.errors import InvalidInputError

router = APIRouter(prefix="/billing", tags=["billing"])


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


def _aware(value: datetime | None, name: str) -> datetime | None:
    if value is not None and value.tzinfo is None:
        raise InvalidInputError(f"'{name}' needs a time zone, e.g. 2025-01-01T00:00:00Z")
    return value


@router.get("/usage")
async def usage(
    context: ContextDep,
    session: SessionDep,
    workflow_id: str | None = None,
    start: Annotated[datetime | None, Query(alias="from")] = None,
    end: Annotated[datetime | None, Query(alias="to")] = None,
) -> UsageOut:
    """Totals over [from, to) — the mandate's own ledger only."""
    start, end = _aware(start, "from"), _aware(end, "to")
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
