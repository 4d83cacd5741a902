"""Tables of the `trustee` bookkeeping feature: accounts, journal entries, customers and
invoices, one set of rows per feature instance.

Every row carries its mandate and its instance, so every query can filter by both. The declared
schema the agent sees lives here too, in each column's `info`: a description, and `kind` —
`balance` or `total` marks values that are already aggregated (never to be summed again),
`movement` marks the amounts that may be summed.
"""

from __future__ import annotations

from datetime import date
from decimal import Decimal

from sqlalchemy import BigInteger, Date, ForeignKey, Index, Integer, String, TypeDecorator
from sqlalchemy.engine import Dialect
from sqlalchemy.orm import Mapped, mapped_column

from agentur.storage.models.base import Base

CENTS = Decimal(100)


class Money(TypeDecorator[Decimal]):
    """Francs with two decimals, stored as integer cents: sums are exact on SQLite too, which
    has no decimal type and would add floats."""

    impl = BigInteger
    cache_ok = True

    def process_bind_param(self, value: Decimal | None, dialect: Dialect) -> int | None:
        if value is None:
            return None
        return int((Decimal(value) * CENTS).to_integral_value())

    def process_result_value(self, value: object, dialect: Dialect) -> Decimal | None:
        if value is None:
            return None
        return (Decimal(str(value)) / CENTS).quantize(Decimal("0.01"))


def info(description: str, kind: str | None = None) -> dict[str, str]:
    return {"description": description, **({"kind": kind} if kind else {})}


class _FeatureRow:
    """Tenant and instance of a row; the surrogate key is internal and never shown."""

    row_id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    mandate_id: Mapped[str] = mapped_column(ForeignKey("mandates.id", ondelete="CASCADE"))
    instance_id: Mapped[str] = mapped_column(ForeignKey("feature_instances.id", ondelete="CASCADE"))


class TrusteeAccount(_FeatureRow, Base):
    __tablename__ = "trustee_accounts"
    __table_args__ = (Index("ix_trustee_accounts_instance", "instance_id", "number"),)

    number: Mapped[str] = mapped_column(
        String(16), info=info("Account number of the SME chart (1xxx assets, 102x bank, ...).")
    )
    name: Mapped[str] = mapped_column(String(200), info=info("Account name."))
    category: Mapped[str] = mapped_column(
        String(16), info=info("asset, liability, equity, income or expense.")
    )
    opening_balance: Mapped[Decimal] = mapped_column(
        Money(), info=info("Balance at the start of the year (CHF).", "balance")
    )
    closing_balance: Mapped[Decimal] = mapped_column(
        Money(), info=info("Balance at the end of the year (CHF).", "balance")
    )


class TrusteeJournalEntry(_FeatureRow, Base):
    __tablename__ = "trustee_journal_entries"
    __table_args__ = (
        Index("ix_trustee_journal_instance_account", "instance_id", "account_number", "period"),
    )

    entry_date: Mapped[date] = mapped_column(Date, info=info("Booking date."))
    period: Mapped[str] = mapped_column(String(7), info=info("Booking month, YYYY-MM."))
    account_number: Mapped[str] = mapped_column(String(16), info=info("Account booked."))
    description: Mapped[str] = mapped_column(String(500), info=info("Booking text."))
    debit: Mapped[Decimal] = mapped_column(
        Money(), info=info("Debit amount of this booking (CHF).", "movement")
    )
    credit: Mapped[Decimal] = mapped_column(
        Money(), info=info("Credit amount of this booking (CHF).", "movement")
    )


class TrusteeCustomer(_FeatureRow, Base):
    __tablename__ = "trustee_customers"
    __table_args__ = (Index("ix_trustee_customers_instance", "instance_id", "number"),)

    number: Mapped[str] = mapped_column(String(32), info=info("Customer number."))
    name: Mapped[str] = mapped_column(String(200), info=info("Customer name."))
    city: Mapped[str] = mapped_column(String(100), info=info("City."))
    revenue_total: Mapped[Decimal] = mapped_column(
        Money(), info=info("Revenue of all invoices so far (CHF), precomputed.", "total")
    )


class TrusteeInvoice(_FeatureRow, Base):
    __tablename__ = "trustee_invoices"
    __table_args__ = (Index("ix_trustee_invoices_instance", "instance_id", "status"),)

    number: Mapped[str] = mapped_column(String(32), info=info("Invoice number."))
    customer_number: Mapped[str] = mapped_column(String(32), info=info("Customer invoiced."))
    issue_date: Mapped[date] = mapped_column(Date, info=info("Date issued."))
    due_date: Mapped[date] = mapped_column(Date, info=info("Date payment is due."))
    amount: Mapped[Decimal] = mapped_column(Money(), info=info("Invoice amount (CHF).", "movement"))
    status: Mapped[str] = mapped_column(String(16), info=info("open or paid."))
    paid_date: Mapped[date | None] = mapped_column(
        Date, nullable=True, info=info("Date paid; empty while open.")
    )
