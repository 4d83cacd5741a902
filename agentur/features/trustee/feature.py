"""The `trustee` bookkeeping feature: its tables and its domain hints for the sub-agent."""

from __future__ import annotations

from agentur.features.schema import TableSchema, table_schema
from agentur.storage.models.trustee import (
    TrusteeAccount,
    TrusteeCustomer,
    TrusteeInvoice,
    TrusteeJournalEntry,
)

FEATURE_CODE = "trustee"

TABLES: dict[str, TableSchema] = {
    schema.name: schema
    for schema in (
        table_schema("accounts", "Chart of accounts with yearly balances.", TrusteeAccount),
        table_schema(
            "journal_entries",
            "Every booking: one row per account movement (debit or credit).",
            TrusteeJournalEntry,
        ),
        table_schema("customers", "Customers with precomputed revenue.", TrusteeCustomer),
        table_schema("invoices", "Invoices issued to customers.", TrusteeInvoice),
    )
}

DOMAIN_HINTS = (
    "Swiss SME chart of accounts: 1xxx assets (100x cash, 102x bank, 1100 receivables), "
    "2xxx liabilities, 28xx equity, 3xxx income, 4xxx-6xxx expenses. "
    "Turnover of an account in a month = SUM(debit) and SUM(credit) of journal_entries "
    "filtered by account_number and period (YYYY-MM). "
    "Revenue per customer = SUM(amount) of invoices grouped by customer_number. "
    "Overdue invoices: status = open and due_date before the cut-off date."
)
