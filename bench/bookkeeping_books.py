"""The generated bookkeeping of bench/feature_data.py (seeded, so every run asks about the
same books): a Swiss SME chart of accounts, customers, invoices and double-entry bookings,
with CSV text for the real import."""

from __future__ import annotations

import csv
import io
import random
from collections import defaultdict
from dataclasses import dataclass
from datetime import date, timedelta
from decimal import Decimal

YEAR = 2025
CENT = Decimal("0.01")
ACCOUNTS = {
    "1000": ("Kasse", "asset"),
    "1020": ("Bank", "asset"),
    "1100": ("Debitoren", "asset"),
    "2000": ("Kreditoren", "liability"),
    "2800": ("Eigenkapital", "equity"),
    "3200": ("Warenertrag", "income"),
    "3400": ("Dienstleistungsertrag", "income"),
    "4000": ("Materialaufwand", "expense"),
    "5000": ("Lohnaufwand", "expense"),
    "6000": ("Raumaufwand", "expense"),
    "6500": ("Verwaltungsaufwand", "expense"),
    "6600": ("Werbeaufwand", "expense"),
}
# (debit, credit, description, low, high): the kinds of bookings an SME makes.
TEMPLATES = [
    ("1100", "3200", "Warenverkauf", 50, 5000),
    ("1100", "3400", "Dienstleistung", 100, 8000),
    ("1020", "1100", "Zahlung Debitor", 50, 8000),
    ("4000", "2000", "Materialeinkauf", 20, 3000),
    ("2000", "1020", "Zahlung Kreditor", 20, 3000),
    ("5000", "1020", "Lohn", 3000, 9000),
    ("6000", "1020", "Miete", 1500, 4000),
    ("6500", "1000", "Büromaterial", 5, 300),
    ("6600", "1020", "Inserat", 100, 2500),
]


def amount(rng: random.Random, low: int, high: int) -> Decimal:
    return Decimal(rng.randint(low * 100, high * 100)) / 100


def day(rng: random.Random) -> date:
    return date(YEAR, 1, 1) + timedelta(days=rng.randrange(365))


@dataclass
class Books:
    csv: dict[str, str]
    journal: list[tuple[date, str, Decimal, Decimal]]
    invoices: list[tuple[str, str, date, date, Decimal, str]]


def to_csv(header: list[str], rows: list[list[object]]) -> str:
    out = io.StringIO()
    writer = csv.writer(out)
    writer.writerow(header)
    writer.writerows(rows)
    return out.getvalue()


def generate(bookings: int, seed: int = 16) -> Books:
    rng = random.Random(seed)
    journal: list[tuple[date, str, Decimal, Decimal]] = []
    journal_rows = []
    for index in range(bookings):
        debit, credit, text, low, high = rng.choice(TEMPLATES)
        when, value = day(rng), amount(rng, low, high)
        for account, d, c in ((debit, value, Decimal(0)), (credit, Decimal(0), value)):
            journal.append((when, account, d, c))
            journal_rows.append(
                [when.isoformat(), when.strftime("%Y-%m"), account, f"{text} {index}", d, c]
            )
    balance: dict[str, Decimal] = defaultdict(Decimal)
    for _, account, d, c in journal:
        balance[account] += d - c
    openings = {number: amount(rng, 0, 50_000) for number in ACCOUNTS}
    accounts = [
        [number, name, category, openings[number], openings[number] + balance[number]]
        for number, (name, category) in ACCOUNTS.items()
    ]
    customers = [f"K{n:04d}" for n in range(1, 301)]
    weights = [rng.paretovariate(1.2) for _ in customers]  # a few big customers, many small
    invoices = []
    for n in range(1, 6001):
        issued = day(rng)
        due = issued + timedelta(days=30)
        paid = rng.random() < 0.8 and due < date(YEAR, 12, 31)
        paid_on = issued + timedelta(days=rng.randint(5, 60)) if paid else None
        invoices.append(
            (
                f"R{n:05d}",
                rng.choices(customers, weights)[0],
                issued,
                due,
                amount(rng, 80, 12_000),
                "paid" if paid else "open",
                paid_on,
            )
        )
    revenue: dict[str, Decimal] = defaultdict(Decimal)
    for _, customer, *_rest in invoices:
        revenue[customer] += _rest[2]
    customer_rows = [
        [c, f"Kunde {c} AG", rng.choice(["Bern", "Zürich", "Basel", "Luzern"]), revenue[c]]
        for c in customers
    ]
    csv_files = {
        "accounts": to_csv(
            ["number", "name", "category", "opening_balance", "closing_balance"], accounts
        ),
        "journal_entries": to_csv(
            ["entry_date", "period", "account_number", "description", "debit", "credit"],
            journal_rows,
        ),
        "customers": to_csv(["number", "name", "city", "revenue_total"], customer_rows),
        "invoices": to_csv(
            [
                "number",
                "customer_number",
                "issue_date",
                "due_date",
                "amount",
                "status",
                "paid_date",
            ],
            [[*row[:6], row[6].isoformat() if row[6] else ""] for row in invoices],
        ),
    }
    return Books(csv_files, journal, [row[:6] for row in invoices])
