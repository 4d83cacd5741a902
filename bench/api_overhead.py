"""API and CLI overhead. Prints figures, asserts nothing.

    python bench/api_overhead.py [--serial 2000] [--concurrency 200] [--requests 4000]

Starts the real `agentur serve` (uvicorn, SQLite in a temporary data folder) on 127.0.0.1,
uploads a few files, then times `GET /v1/files` with the local admin's key:
- serially, one keep-alive connection, one request after the other → requests/s, by three
  clients: the lean raw-socket client `bench/serial_http_client.py` in its own process (the
  headline figure: it costs a few tens of µs per request), `ab -k -c 1` when apache2-utils is
  installed, and httpx in this process (what a Python caller sees; it takes about half of each
  round trip on this machine);
- concurrently: `--concurrency` httpx clients sharing `--requests` requests → p50 / p99 latency.
Every client runs on the same machine and competes with the server for CPU, so the server's own
CPU time per request is printed too (process CPU time / requests: it does not depend on how
busy the machine is, requests/s does), and so is the load average.
Also times `agentur --help` (a fresh interpreter, best and median of 5).
"""

from __future__ import annotations

import argparse
import asyncio
import math
import os
import shutil
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import TypeVar

import httpx

ROOT = Path(__file__).resolve().parents[1]
AGENTUR = [sys.executable, "-c", "from agentur.cli.main import app; app()"]
FILES = 20
WARMUP = 200
PATH = "/v1/files"
T = TypeVar("T")


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def percentile(timings: list[float], share: float) -> float:
    """Nearest-rank percentile."""
    ordered = sorted(timings)
    return ordered[max(0, math.ceil(share * len(ordered)) - 1)]


def cpu_seconds(pid: int) -> float:
    """User + system CPU time a process has used so far (Linux /proc)."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def help_time() -> tuple[float, float, float]:
    """(best wall, median wall, median CPU) seconds of `agentur --help` in a fresh interpreter.
    CPU time is what the command costs; wall time also shows how busy the machine is."""
    walls, cpus = [], []
    for _ in range(5):
        before = os.times()
        started = time.perf_counter()
        subprocess.run([*AGENTUR, "--help"], check=True, capture_output=True, cwd=ROOT)
        walls.append(time.perf_counter() - started)
        after = os.times()
        cpus.append(
            after.children_user
            - before.children_user
            + after.children_system
            - before.children_system
        )
    return min(walls), statistics.median(walls), statistics.median(cpus)


def start_server(data_dir: Path, port: int) -> tuple[subprocess.Popen[bytes], str]:
    env = {
        **os.environ,
        "AGENTUR_DATA_DIR": str(data_dir),
        "AGENTUR_DATABASE_URL": "",
        "AGENTUR_LOG_LEVEL": "WARNING",
        "AGENTUR_KNOWLEDGE_WORKER_ENABLED": "false",  # no indexing competes for the CPU
    }
    server = subprocess.Popen(
        [*AGENTUR, "serve", "--host", "127.0.0.1", "--port", str(port)],
        cwd=ROOT,
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
    )
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline:
        try:
            if httpx.get(f"http://127.0.0.1:{port}/healthz", timeout=1).status_code == 200:
                key = (data_dir / "admin.key").read_text().strip()
                return server, key
        except (httpx.HTTPError, OSError):
            time.sleep(0.2)
        if server.poll() is not None:
            raise SystemExit(f"agentur serve exited: {server.stderr.read().decode()[-2000:]}")
    raise SystemExit("agentur serve did not answer /healthz within 120 s")


def lean_serial(port: int, key: str, count: int) -> tuple[float, float]:
    """(requests/s, client CPU ms per request) of the lean client in its own process."""
    client = ROOT / "bench" / "serial_http_client.py"
    answer = subprocess.run(
        [sys.executable, str(client), str(port), PATH, key, str(WARMUP), str(count)],
        check=True,
        capture_output=True,
        text=True,
    )
    rate, client_cpu = answer.stdout.split()
    return float(rate), float(client_cpu)


def ab_serial(port: int, key: str, count: int) -> float | None:
    """requests/s by ApacheBench (`ab -k -c 1`), or None when it is not installed."""
    ab = shutil.which("ab")
    if ab is None:
        return None
    url = f"http://127.0.0.1:{port}{PATH}"
    command = [ab, "-q", "-k", "-c", "1", "-H", f"Authorization: Bearer {key}"]
    subprocess.run([*command, "-n", str(WARMUP), url], check=True, capture_output=True)
    output = subprocess.run(
        [*command, "-n", str(count), url], check=True, capture_output=True, text=True
    ).stdout
    if "Non-2xx responses" in output or "Failed requests:        0" not in output:
        raise SystemExit(f"ab saw failed requests:\n{output}")
    line = next(line for line in output.splitlines() if line.startswith("Requests per second"))
    return float(line.split()[3])


def timed_server_cpu(pid: int, count: int, measure: Callable[[], T]) -> tuple[T, float]:
    """What `measure` returns and the server's CPU ms per request while it ran (`count`
    requests, warm-up included)."""
    used = cpu_seconds(pid)
    result = measure()
    return result, (cpu_seconds(pid) - used) / count * 1000


async def serial(base: str, key: str, count: int) -> float:
    headers = {"Authorization": f"Bearer {key}"}
    async with httpx.AsyncClient(base_url=base, headers=headers) as client:
        for _ in range(WARMUP):
            (await client.get("/v1/files")).raise_for_status()
        started = time.perf_counter()
        for _ in range(count):
            (await client.get("/v1/files")).raise_for_status()
        return count / (time.perf_counter() - started)


async def concurrent(base: str, key: str, clients: int, count: int) -> tuple[list[float], int]:
    """Latencies of the requests that got an answer, and how many failed (a connection the
    server closed, e.g. after its keep-alive timeout, while the request was on its way)."""
    headers = {"Authorization": f"Bearer {key}"}
    limits = httpx.Limits(max_connections=clients, max_keepalive_connections=clients)
    timings: list[float] = []
    failed = 0
    remaining = count
    async with httpx.AsyncClient(
        base_url=base, headers=headers, limits=limits, timeout=120
    ) as client:

        async def one_client() -> None:
            nonlocal remaining, failed
            while remaining > 0:
                remaining -= 1
                started = time.perf_counter()
                try:
                    (await client.get("/v1/files")).raise_for_status()
                except httpx.TransportError:
                    failed += 1
                    continue
                timings.append((time.perf_counter() - started) * 1000)

        await asyncio.gather(*(one_client() for _ in range(clients)))
    return timings, failed


async def upload(base: str, key: str) -> None:
    headers = {"Authorization": f"Bearer {key}"}
    async with httpx.AsyncClient(base_url=base, headers=headers) as client:
        for number in range(FILES):
            response = await client.post(
                "/v1/files",
                files={"file": (f"note-{number}.txt", f"note {number}".encode(), "text/plain")},
            )
            response.raise_for_status()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--serial", type=int, default=2_000, help="serial requests timed")
    parser.add_argument("--concurrency", type=int, default=200, help="0: skip")
    parser.add_argument("--requests", type=int, default=4_000, help="concurrent requests timed")
    args = parser.parse_args()
    print(f"load average before: {os.getloadavg()}")
    best, median, cpu = help_time()
    print(
        f"agentur --help: wall best {best:.2f} s, median {median:.2f} s; CPU {cpu:.2f} s (5 runs)"
    )
    work = Path(tempfile.mkdtemp(prefix="agentur-api-bench-"))
    port = free_port()
    server, key = start_server(work / "data", port)
    base = f"http://127.0.0.1:{port}"
    try:
        asyncio.run(upload(base, key))
        requests = args.serial + WARMUP
        (lean, client_cpu), lean_cpu = timed_server_cpu(
            server.pid, requests, lambda: lean_serial(port, key, args.serial)
        )
        print(
            f"GET {PATH} ({FILES} files), serial, lean client (headline): {lean:.0f} requests/s "
            f"({args.serial} timed); server CPU {lean_cpu:.2f} ms per request, "
            f"client CPU {client_cpu:.3f} ms per request; load {os.getloadavg()[0]:.2f}"
        )
        ab_rate, ab_cpu = timed_server_cpu(
            server.pid, requests, lambda: ab_serial(port, key, args.serial)
        )
        if ab_rate is None:
            print("ab -k -c 1: not installed (apt-get install apache2-utils)")
        else:
            print(
                f"GET {PATH}, serial, ab -k -c 1: {ab_rate:.0f} requests/s; "
                f"server CPU {ab_cpu:.2f} ms per request; load {os.getloadavg()[0]:.2f}"
            )
        rate, httpx_cpu = timed_server_cpu(
            server.pid, requests, lambda: asyncio.run(serial(base, key, args.serial))
        )
        print(
            f"GET {PATH}, serial, httpx in this process (client included): {rate:.0f} "
            f"requests/s; server CPU {httpx_cpu:.2f} ms per request; "
            f"load {os.getloadavg()[0]:.2f}"
        )
        if args.concurrency > 0:
            timings, failed = asyncio.run(concurrent(base, key, args.concurrency, args.requests))
            print(
                f"GET {PATH}, {args.concurrency} concurrent clients, {len(timings)} requests: "
                f"p50 {statistics.median(timings):.1f} ms, "
                f"p99 {percentile(timings, 0.99):.1f} ms ({failed} failed)"
            )
    finally:
        server.terminate()
        try:
            server.wait(timeout=30)
        except subprocess.TimeoutExpired:
            server.kill()
            server.wait()
        shutil.rmtree(work, ignore_errors=True)
    print(f"load average after: {os.getloadavg()}")


if __name__ == "__main__":
    main()
