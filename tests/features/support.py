"""Helpers for feature-data tests: a trustee instance with a small, known bookkeeping."""

from __future__ import annotations

from agentur.accounts import directory
from agentur.context import RequestContext
from agentur.runtime import Runtime

ACCOUNTS_CSV = """number,name,category,opening_balance,closing_balance
1020,Bank,asset,10000.00,13500.00
3200,Revenue,income,0.00,-4500.00
6000,Rent,expense,0.00,1000.00
"""

JOURNAL_CSV = """entry_date,period,account_number,description,debit,credit
2026-01-05,2026-01,1020,Invoice 1 paid,1500.00,0.00
2026-01-05,2026-01,3200,Invoice 1 paid,0.00,1500.00
2026-01-31,2026-01,6000,Rent January,1000.00,0.00
2026-01-31,2026-01,1020,Rent January,0.00,1000.00
2026-02-03,2026-02,1020,Invoice 2 paid,3000.00,0.00
2026-02-03,2026-02,3200,Invoice 2 paid,0.00,3000.00
"""

CUSTOMERS_CSV = """number,name,city,revenue_total
C1,Muster AG,Bern,1500.00
C2,Beispiel GmbH,Basel,3000.00
"""

INVOICES_CSV = """number,customer_number,issue_date,due_date,amount,status,paid_date
R1,C1,2025-12-01,2025-12-31,1500.00,paid,2026-01-05
R2,C2,2026-01-10,2026-02-09,3000.00,paid,2026-02-03
R3,C1,2026-02-15,2026-03-17,800.00,open,
"""

TABLES = {
    "accounts": ACCOUNTS_CSV,
    "journal_entries": JOURNAL_CSV,
    "customers": CUSTOMERS_CSV,
    "invoices": INVOICES_CSV,
}


async def trustee_instance(
    runtime: Runtime, context: RequestContext, *, filled: bool = True
) -> str:
    async with runtime.database.transaction() as session:
        instance = await directory.create_feature_instance(
            session, mandate_id=context.mandate_id, feature_code="trustee", name="Books 2026"
        )
    if filled:
        for table, text in TABLES.items():
            await runtime.feature_data.import_file(
                context, instance.id, table, text.encode(), f"{table}.csv", max_rows=1000
            )
    return instance.id
