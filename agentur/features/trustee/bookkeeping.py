"""Changes to a trustee instance's books (catalog actions): each checks what it refers to
inside the same instance and writes in the caller's transaction."""

from __future__ import annotations

from datetime import date
from decimal import Decimal
from typing import Any

from sqlalchemy import select
from sqlalchemy.ext.asyncio import AsyncSession

from agentur.errors import ConflictError, InvalidInputError, NotFoundError
from agentur.features.instances import InstanceRef
from agentur.storage.models.trustee import (
    TrusteeAccount,
    TrusteeCustomer,
    TrusteeInvoice,
    TrusteeJournalEntry,
)


async def _exists(session: AsyncSession, instance: InstanceRef, model: Any, **match: str) -> bool:
    query = select(model.row_id).where(
        model.mandate_id == instance.mandate_id,
        model.instance_id == instance.id,
        *(getattr(model, name) == value for name, value in match.items()),
    )
    return (await session.execute(query.limit(1))).first() is not None


def _owner(instance: InstanceRef) -> dict[str, str]:
    return {"mandate_id": instance.mandate_id, "instance_id": instance.id}


async def create_invoice(
    session: AsyncSession,
    instance: InstanceRef,
    *,
    number: str,
    customer_number: str,
    issue_date: date,
    due_date: date,
    amount: Decimal,
) -> dict[str, Any]:
    if due_date < issue_date:
        raise InvalidInputError("due_date is before issue_date")
    if not await _exists(session, instance, TrusteeCustomer, number=customer_number):
        raise NotFoundError(f"customer {customer_number} not found in this instance")
    if await _exists(session, instance, TrusteeInvoice, number=number):
        raise ConflictError(f"invoice {number} exists already")
    session.add(
        TrusteeInvoice(
            **_owner(instance),
            number=number,
            customer_number=customer_number,
            issue_date=issue_date,
            due_date=due_date,
            amount=amount,
            status="open",
            paid_date=None,
        )
    )
    await session.flush()
    return {"invoice": number, "status": "open", "amount": str(amount)}


async def book_journal_entry(
    session: AsyncSession,
    instance: InstanceRef,
    *,
    entry_date: date,
    debit_account: str,
    credit_account: str,
    amount: Decimal,
    description: str,
) -> dict[str, Any]:
    """Double entry: one debit row and one credit row of the same amount."""
    if debit_account == credit_account:
        raise InvalidInputError("debit and credit account are the same")
    for account in (debit_account, credit_account):
        if not await _exists(session, instance, TrusteeAccount, number=account):
            raise NotFoundError(f"account {account} not found in this instance")
    common = {
        **_owner(instance),
        "entry_date": entry_date,
        "period": entry_date.strftime("%Y-%m"),
        "description": description,
    }
    zero = Decimal("0.00")
    session.add_all(
        [
            TrusteeJournalEntry(**common, account_number=debit_account, debit=amount, credit=zero),
            TrusteeJournalEntry(**common, account_number=credit_account, debit=zero, credit=amount),
        ]
    )
    await session.flush()
    return {"booked": str(amount), "debit": debit_account, "credit": credit_account}


async def mark_invoice_paid(
    session: AsyncSession, instance: InstanceRef, *, number: str, paid_date: date
) -> dict[str, Any]:
    invoice = (
        await session.execute(
            select(TrusteeInvoice).where(
                TrusteeInvoice.mandate_id == instance.mandate_id,
                TrusteeInvoice.instance_id == instance.id,
                TrusteeInvoice.number == number,
            )
        )
    ).scalar_one_or_none()
    if invoice is None:
        raise NotFoundError(f"invoice {number} not found in this instance")
    if invoice.status == "paid":
        raise ConflictError(f"invoice {number} was paid on {invoice.paid_date}")
    invoice.status, invoice.paid_date = "paid", paid_date
    await session.flush()
    return {"invoice": number, "status": "paid", "paid_date": paid_date.isoformat()}
