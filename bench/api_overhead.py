"""API and CLI overhead (issue 9 item 5). Prints figures, asserts nothing.

    python bench/api_overhead.py [--serial 2000] [--concurrency 200] [--requests 4000]

Starts the real `agentur serve` (uvicorn, SQLite in a temporary data folder) on 127.0.0.1,
uploads a few files, then times `GET /v1/files` with the local admin's key:
- serially: one keep-alive connection, one request after the other → requests/s;
- concurrently: `--concurrency` clients sharing `--requests` requests → p50 / p99 latency.
The client runs in this process on the same machine, so it competes with the server for CPU;
the server's own CPU time per request is printed too (it does not depend on how busy the
machine is, requests/s does).
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
from pathlib import Path

import httpx

ROOT = Path(__file__).resolve().parents[1]
AGENTUR = [sys.executable, "-c", "from agentur.cli.main import app; app()"]
FILES = 20
WARMUP = 200


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
    parser.add_argument("--concurrency", type=int, default=200)
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
        used = cpu_seconds(server.pid)
        rate = asyncio.run(serial(base, key, args.serial))
        used = (cpu_seconds(server.pid) - used) / (args.serial + WARMUP) * 1000
        print(
            f"GET /v1/files ({FILES} files), serial: {rate:.0f} requests/s ({args.serial} timed); "
            f"server CPU {used:.2f} ms per request"
        )
        timings, failed = asyncio.run(concurrent(base, key, args.concurrency, args.requests))
        print(
            f"GET /v1/files, {args.concurrency} concurrent clients, {len(timings)} requests: "
            f"p50 {statistics.median(timings):.1f} ms, p99 {percentile(timings, 0.99):.1f} ms"
            f" ({failed} failed)"
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
