"""Actions on a trustee instance's books, declared as typed functions; their tools are
generated (`trustee_create_invoice`, …). Every action checks the instance belongs to the
caller's mandate and writes in one transaction."""

from __future__ import annotations

from datetime import date
from decimal import Decimal
from typing import Annotated, Any

from pydantic import Field

from agentur.features.trustee import bookkeeping
from agentur.tools.action_catalog import Action, action_tool
from agentur.tools.tool import ToolContext

InstanceId = Annotated[str, Field(description="The trustee feature instance.")]
Amount = Annotated[Decimal, Field(gt=0, max_digits=14, decimal_places=2, description="CHF.")]


async def create_invoice(
    context: ToolContext,
    *,
    instance_id: InstanceId,
    number: Annotated[str, Field(min_length=1, max_length=32)],
    customer_number: Annotated[str, Field(min_length=1, max_length=32)],
    issue_date: date,
    due_date: date,
    amount: Amount,
) -> dict[str, Any]:
    """Create an open invoice for an existing customer of the instance."""
    return await context.runtime.feature_data.change(
        context.request,
        instance_id,
        lambda session, instance: bookkeeping.create_invoice(
            session,
            instance,
            number=number,
            customer_number=customer_number,
            issue_date=issue_date,
            due_date=due_date,
            amount=amount,
        ),
    )


async def book_journal_entry(
    context: ToolContext,
    *,
    instance_id: InstanceId,
    entry_date: date,
    debit_account: Annotated[str, Field(min_length=1, max_length=16)],
    credit_account: Annotated[str, Field(min_length=1, max_length=16)],
    amount: Amount,
    description: Annotated[str, Field(min_length=1, max_length=500)],
) -> dict[str, Any]:
    """Book a double entry: the amount on the debit account and on the credit account."""
    return await context.runtime.feature_data.change(
        context.request,
        instance_id,
        lambda session, instance: bookkeeping.book_journal_entry(
            session,
            instance,
            entry_date=entry_date,
            debit_account=debit_account,
            credit_account=credit_account,
            amount=amount,
            description=description,
        ),
    )


async def mark_invoice_paid(
    context: ToolContext,
    *,
    instance_id: InstanceId,
    number: Annotated[str, Field(min_length=1, max_length=32)],
    paid_date: date,
) -> dict[str, Any]:
    """Mark an open invoice as paid on the given date."""
    return await context.runtime.feature_data.change(
        context.request,
        instance_id,
        lambda session, instance: bookkeeping.mark_invoice_paid(
            session, instance, number=number, paid_date=paid_date
        ),
    )


ACTIONS = [
    Action("trustee", function, toolbox="trustee")
    for function in (create_invoice, book_journal_entry, mark_invoice_paid)
]
TOOLS = [action_tool(action) for action in ACTIONS]
