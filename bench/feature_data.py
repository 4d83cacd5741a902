"""Feature-data bench. Prints figures, asserts nothing.

    python bench/feature_data.py [--backends sqlite,postgresql] [--bookings 25000]

A generated but realistic bookkeeping (seeded): a Swiss SME chart of accounts, 300 customers,
6,000 invoices over 2025 and 25,000 double-entry bookings (50,000 journal rows), imported
through the real CSV import. Then, per backend:
1. 35 questions with answers computed independently in Python (monthly revenue, yearly
   debits per account, top customers, unpaid invoices over N days, invoice statistics) asked
   through `query_feature_instance`: the parent and the sub-agent are a scripted model issuing
   the right `aggregate_table` call; the answer is read back from the run's final text and
   compared exactly. The question set runs twice; the result cache's hit rate is printed per pass.
2. Latency of `aggregate_table` (the query itself, cache bypassed): p50/p95 over the questions'
   aggregates, repeated.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import statistics
import sys
import tempfile
import time
from collections import defaultdict
from dataclasses import dataclass
from datetime import date, timedelta
from decimal import Decimal
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from bookkeeping_books import (  # noqa: E402
    CENT,
    YEAR,
    Books,
    generate,
)

from agentur.accounts import directory  # noqa: E402
from agentur.agent.config import AgentConfig  # noqa: E402
from agentur.agent.dependencies import AgentDependencies  # noqa: E402
from agentur.agent.run_agent import run_agent  # noqa: E402
from agentur.ai.messages import AiRequest, Role  # noqa: E402
from agentur.ai.providers.scripted import ScriptedProvider, ScriptedTurn  # noqa: E402
from agentur.ai.service import AiService  # noqa: E402
from agentur.ai.settings import AiSettings  # noqa: E402
from agentur.config import Settings  # noqa: E402
from agentur.context import RequestContext  # noqa: E402
from agentur.context import Role as UserRole  # noqa: E402
from agentur.features.instances import get_instance  # noqa: E402
from agentur.features.query_tables import AggregateArguments, aggregate_table  # noqa: E402
from agentur.runtime import Runtime  # noqa: E402


@dataclass(frozen=True)
class Question:
    text: str
    call: dict  # the aggregate_table arguments the scripted model sends
    expected: object  # the answer computed in Python from the generated rows


def eq(column: str, value: object) -> dict:
    return {"column": column, "op": "eq", "value": value}


def questions(books: Books) -> list[Question]:
    found: list[Question] = []
    for month in range(1, 13):
        period = f"{YEAR}-{month:02d}"
        expected = sum(
            (c for when, a, _, c in books.journal if a == "3200" and when.month == month),
            Decimal(0),
        )
        found.append(
            Question(
                f"Goods revenue (account 3200) booked in {period}?",
                {
                    "table": "journal_entries",
                    "function": "SUM",
                    "column": "credit",
                    "filters": [eq("account_number", "3200"), eq("period", period)],
                },
                str(expected.quantize(CENT)),
            )
        )
    for account in ["1000", "1020", "1100", "2000", "4000", "5000", "6000", "6500", "6600", "3400"]:
        column = "credit" if account == "3400" else "debit"
        expected = sum(
            ((d if column == "debit" else c) for _, a, d, c in books.journal if a == account),
            Decimal(0),
        )
        found.append(
            Question(
                f"Total {column} movements of account {account} in {YEAR}?",
                {
                    "table": "journal_entries",
                    "function": "SUM",
                    "column": column,
                    "filters": [eq("account_number", account)],
                },
                str(expected.quantize(CENT)),
            )
        )
    per_customer: dict[str, Decimal] = defaultdict(Decimal)
    for _, customer, _, _, value, _ in books.invoices:
        per_customer[customer] += value
    top = sorted(per_customer.items(), key=lambda item: (-item[1], item[0]))[:5]
    found.append(
        Question(
            "Top 5 customers by invoiced amount?",
            {
                "table": "invoices",
                "function": "SUM",
                "column": "amount",
                "group_by": ["customer_number"],
                "order": "value_desc",
                "limit": 5,
            },
            [[c, str(v.quantize(CENT))] for c, v in top],
        )
    )
    cutoff_day = date(YEAR, 12, 31)
    for days in (30, 60, 90):
        cutoff = cutoff_day - timedelta(days=days)
        overdue = [v for _, _, _, due, v, s in books.invoices if s == "open" and due < cutoff]
        base = {
            "table": "invoices",
            "filters": [
                eq("status", "open"),
                {"column": "due_date", "op": "lt", "value": str(cutoff)},
            ],
        }
        found.append(
            Question(
                f"How many invoices are unpaid more than {days} days?",
                {**base, "function": "COUNT"},
                len(overdue),
            )
        )
        found.append(
            Question(
                f"Amount unpaid more than {days} days?",
                {**base, "function": "SUM", "column": "amount"},
                str(sum(overdue, Decimal(0)).quantize(CENT)),
            )
        )
    for customer, _ in top[:3]:
        count = sum(1 for _, c, *_ in books.invoices if c == customer)
        found.append(
            Question(
                f"How many invoices did {customer} get?",
                {
                    "table": "invoices",
                    "function": "COUNT",
                    "filters": [eq("customer_number", customer)],
                },
                count,
            )
        )
    values = [v for *_, v, _ in books.invoices]
    average = (sum(values, Decimal(0)) / len(values)).quantize(CENT)
    for function, expected in (("AVG", average), ("MAX", max(values)), ("MIN", min(values))):
        found.append(
            Question(
                f"{function} invoice amount?",
                {"table": "invoices", "function": function, "column": "amount"},
                str(expected.quantize(CENT)),
            )
        )
    return found


def tool_json(request: AiRequest) -> dict:
    return json.loads([m for m in request.messages if m.role is Role.tool][-1].content)


def answer_of(groups: list[dict]) -> object:
    if len(groups) == 1 and set(groups[0]) == {"value"}:
        return groups[0]["value"]
    return [[g["customer_number"], g["value"]] for g in groups]


def script(instance_id: str, question: Question) -> list:
    def sub_answer(request: AiRequest) -> ScriptedTurn:
        result = tool_json(request)
        return ScriptedTurn(
            text=json.dumps({"answer": answer_of(result["groups"]), "filters": result["filters"]})
        )

    def parent_answer(request: AiRequest) -> ScriptedTurn:
        return ScriptedTurn(text=tool_json(request)["answer"])

    return [
        ScriptedTurn.call(
            "query_feature_instance", "p", instance_id=instance_id, question=question.text
        ),
        ScriptedTurn.call("aggregate_table", "s", **question.call),
        sub_answer,
        parent_answer,
    ]


async def setup(url: str, data_dir: Path, books: Books) -> tuple[Runtime, RequestContext, str]:
    settings = Settings(data_dir=data_dir, database_url=url)
    runtime = Runtime.from_settings(settings)
    await runtime.migrate()
    async with runtime.database.transaction() as session:
        mandate = await directory.create_mandate(session, f"bench-{os.getpid()}-{time.time_ns()}")
        user = await directory.create_user(session, f"{time.time_ns()}@bench.test")
        await directory.add_membership(
            session, user_id=user.id, mandate_id=mandate.id, role="member"
        )
        instance = await directory.create_feature_instance(
            session, mandate_id=mandate.id, feature_code="trustee", name="Bench 2025"
        )
    context = RequestContext(user.id, mandate.id, UserRole.member)
    started = time.perf_counter()
    for table, text in books.csv.items():
        await runtime.feature_data.import_file(
            context, instance.id, table, text.encode(), f"{table}.csv", max_rows=200_000
        )
    rows = sum(text.count("\n") - 1 for text in books.csv.values())
    print(f"  imported {rows} rows in {time.perf_counter() - started:.1f} s")
    return runtime, context, instance.id


async def ask_all(runtime: Runtime, context: RequestContext, instance_id: str, qs) -> int:
    exact = 0
    for question in qs:
        provider = ScriptedProvider(script(instance_id, question))
        deps = AgentDependencies(
            ai=AiService([provider], settings=AiSettings()),
            settings=runtime.all_settings.agent,
            runtime=runtime,
            usd_to_chf=1.0,
        )
        result = await run_agent(
            question.text, AgentConfig(initial_toolboxes=["trustee"]), context, deps
        )
        answer = json.loads(result.final_text)["answer"]
        if answer == question.expected:
            exact += 1
        else:
            print(f"  WRONG: {question.text}: {answer!r} != {question.expected!r}")
    return exact


async def latency(runtime: Runtime, context: RequestContext, instance_id: str, qs, repeats: int):
    timings = []
    async with runtime.database.session() as session:
        instance = await get_instance(session, context, instance_id)
        for _ in range(repeats):
            for question in qs:
                args = AggregateArguments.model_validate(question.call)
                started = time.perf_counter()
                await aggregate_table(session, instance, args)
                timings.append((time.perf_counter() - started) * 1000)
    timings.sort()
    return statistics.median(timings), timings[int(0.95 * (len(timings) - 1))], len(timings)


async def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--backends", default="sqlite,postgresql")
    parser.add_argument("--bookings", type=int, default=25_000)
    parser.add_argument("--repeats", type=int, default=10)
    args = parser.parse_args()
    books = generate(args.bookings)
    qs = questions(books)
    print(f"journal rows {len(books.journal)}, invoices {len(books.invoices)}, questions {len(qs)}")
    print(f"load average {os.getloadavg()}")
    work = Path(tempfile.mkdtemp(prefix="agentur-feature-bench-"))
    from retrieval import postgres_url  # the same embedded PostgreSQL as the retrieval bench

    for backend in args.backends.split(","):
        url = (
            f"sqlite+aiosqlite:///{work / 'bench.db'}"
            if backend == "sqlite"
            else postgres_url(work)
        )
        print(f"[{backend}]")
        runtime, context, instance_id = await setup(url, work / backend, books)
        try:
            cache = runtime.feature_data.cache
            for attempt in (1, 2):
                hits, misses = cache.hits, cache.misses
                exact = await ask_all(runtime, context, instance_id, qs)
                asked = cache.hits - hits + cache.misses - misses
                rate = (cache.hits - hits) / asked if asked else 0.0
                print(f"  pass {attempt}: {exact}/{len(qs)} exact, cache hit rate {rate:.0%}")
            p50, p95, count = await latency(runtime, context, instance_id, qs, args.repeats)
            print(f"  aggregate_table (no cache): p50 {p50:.1f} ms, p95 {p95:.1f} ms over {count}")
        finally:
            await runtime.close()
    print(f"load average {os.getloadavg()}")


if __name__ == "__main__":
    asyncio.run(main())
