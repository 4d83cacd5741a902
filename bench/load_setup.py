"""What `bench/load.py` and `bench/scale_out.py` share: the 100 ms wire-format model, real
`agentur serve` processes started as a person would (the installed console script, settings
in the environment), two tenants made with the CLI, and the load client processes with the
report over their JSON lines."""

from __future__ import annotations

import json
import math
import os
import signal
import socket
import subprocess
import sys
import tempfile
import time
from collections import Counter, defaultdict
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from tests.ai.wire_servers import WireServer, openai_stream, openai_text  # noqa: E402
from tests.ai.wire_servers.server import ReceivedRequest, Reply  # noqa: E402

AGENTUR = str(Path(sys.executable).with_name("agentur"))
MODEL = "openai_compatible:wire-model"
ANSWER = "Artikel können innerhalb von 30 Tagen zurückgegeben werden."
TENANTS = ("tenant-a", "tenant-b")


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def loadavg() -> str:
    return " ".join(f"{value:.2f}" for value in os.getloadavg())


# ------------------------------------------------------------------------------ the model


def _answer_after(latency: float):  # noqa: ANN202
    def answer(request: ReceivedRequest) -> Reply:
        body = request.json or {}
        if body.get("stream"):
            words = ANSWER.split(" ")
            reply = openai_stream(*(w + " " for w in words), input_tokens=300, output_tokens=20)
        else:
            reply = openai_text(ANSWER, input_tokens=300, output_tokens=20)
        return reply.delayed(latency)

    return answer


@contextmanager
def wire_model(latency: float = 0.1) -> Iterator[WireServer]:
    """An OpenAI-compatible chat server on 127.0.0.1 answering every call after `latency`
    seconds (streamed or whole, as asked); one thread per connection."""
    with WireServer("model", "/v1") as server:
        server.default_reply = _answer_after(latency)
        yield server


# ----------------------------------------------------------------------- agentur processes


def agentur_env(data_dir: Path, database_url: str, model: WireServer, **extra: str) -> dict:
    """The environment a person sets (README): data dir, database, the model server."""
    env = {key: value for key, value in os.environ.items() if not key.startswith("AGENTUR_")}
    env |= {
        "AGENTUR_DATA_DIR": str(data_dir),
        "AGENTUR_OPENAI_COMPATIBLE_BASE_URL": model.base_url,
        "AGENTUR_OPENAI_COMPATIBLE_MODELS": "wire-model",
        "AGENTUR_ALLOW_UNPRICED_MODELS": "true",
        "AGENTUR_LOG_LEVEL": "warning",
        "HF_HUB_OFFLINE": "1",
    }
    if database_url:
        env["AGENTUR_DATABASE_URL"] = database_url
    return env | extra


def cli(env: dict[str, str], *args: str) -> str:
    done = subprocess.run([AGENTUR, *args], env=env, capture_output=True, text=True, timeout=300)
    if done.returncode:
        raise RuntimeError(f"agentur {' '.join(args)} failed: {done.stderr.strip()}")
    return done.stdout.strip().splitlines()[-1]


def make_tenants(env: dict[str, str]) -> dict[str, str]:
    """Two mandates with an admin each (the CLI, as the README documents); name → API key."""
    cli(env, "db", "upgrade")
    keys = {}
    for name in TENANTS:
        cli(env, "mandates", "create", name)
        cli(env, "users", "create", f"admin@{name}.example", "--mandate", name, "--role", "admin")
        keys[name] = cli(env, "keys", "create", f"admin@{name}.example", "--mandate", name)
    return keys


@dataclass
class Process:
    name: str
    popen: subprocess.Popen[bytes]
    log: Path
    args: tuple[str, ...]
    env: dict[str, str]

    def kill(self) -> None:
        """SIGKILL, as a crash or the OOM killer would."""
        self.popen.kill()
        self.popen.wait()

    def stop(self) -> None:
        if self.popen.poll() is None:
            self.popen.send_signal(signal.SIGINT)
            try:
                self.popen.wait(timeout=30)
            except subprocess.TimeoutExpired:
                self.popen.kill()
                self.popen.wait()


def start(work: Path, name: str, env: dict[str, str], *args: str) -> Process:
    log = work / f"{name}.log"
    with log.open("ab") as out:
        popen = subprocess.Popen(
            [AGENTUR, *args], env=env, cwd=work, stdout=out, stderr=subprocess.STDOUT
        )
    return Process(name, popen, log, args, env)


def restart(work: Path, process: Process) -> Process:
    return start(work, process.name, process.env, *process.args)


def wait_healthy(process: Process, url: str, deadline_seconds: float = 300) -> None:
    deadline = time.monotonic() + deadline_seconds
    while time.monotonic() < deadline:
        if process.popen.poll() is not None:
            raise RuntimeError(f"{process.name} exited:\n{process.log.read_text()[-3000:]}")
        try:
            if httpx.get(f"{url}/healthz", timeout=2).status_code == 200:
                return
        except httpx.TransportError:
            pass
        time.sleep(0.2)
    raise RuntimeError(f"{process.name} did not become healthy:\n{process.log.read_text()[-3000:]}")


def seed(base_url: str, keys: dict[str, str]) -> dict[str, dict[str, str]]:
    """Per tenant: a visitor assistant and a few indexed files to search and list."""
    tenants = {}
    with httpx.Client(base_url=base_url, timeout=300) as http:
        for name, key in keys.items():
            auth = {"Authorization": f"Bearer {key}"}
            assistant = http.post(
                "/v1/assistants",
                json={
                    "name": "Shop",
                    "instructions": "Du hilfst Besuchern des Shops.",
                    "languages": ["de"],
                },
                headers=auth,
            )
            assistant.raise_for_status()
            for n in range(5):
                text = f"# Handbuch {n}\n\nRückgabe innerhalb von 30 Tagen. Garantie zwei Jahre."
                files = {"file": (f"seed-{n}.md", text.encode(), "text/markdown")}
                http.post("/v1/files", files=files, headers=auth).raise_for_status()
            tenants[name] = {"name": name, "key": key, "assistant_id": assistant.json()["id"]}
    return tenants


# ------------------------------------------------------------------------- load clients


def run_traffic(
    work: Path,
    base_url: str,
    groups: list[dict[str, Any]],
    *,
    seconds: float,
    max_requests: int,
    processes: int,
) -> list[dict[str, Any]]:
    """Runs the groups' clients in `processes` locust processes (`bench/load_traffic.py`)
    for `seconds` (requests in flight then may finish: `--stop-timeout`) and returns every
    request's line."""
    out = Path(tempfile.mkdtemp(prefix="requests-", dir=work))
    plan = work / f"plan-{out.name}.json"
    clients = sum(group["clients"] for group in groups)
    plan.write_text(
        json.dumps(
            {
                "model": MODEL,
                "max_requests": math.ceil(max_requests / processes),
                "groups": [group for group in groups if group["clients"]],
            }
        )
    )
    command = [
        str(Path(sys.executable).with_name("locust")),
        "-f", str(ROOT / "bench" / "load_traffic.py"),
        "--headless", "--only-summary", "--skip-log-setup",
        "--host", base_url,
        "-u", str(clients), "-r", str(clients),
        "-t", f"{seconds:.0f}s", "--stop-timeout", "180",
        "--processes", str(processes),
    ]  # fmt: skip
    env = {**os.environ, "AGENTUR_LOAD_PLAN": str(plan), "AGENTUR_LOAD_OUT": str(out)}
    subprocess.run(
        command,
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=(work / "locust.log").open("a"),
        check=False,
    )
    return [
        json.loads(line)
        for path in sorted(out.glob("*.jsonl"))
        for line in path.read_text().splitlines()
    ]


def percentile(samples: list[float], q: float) -> float:
    ordered = sorted(samples)
    return ordered[max(0, math.ceil(q * len(ordered)) - 1)] if ordered else float("nan")


def report(lines: Iterable[dict[str, Any]], seconds: float) -> dict[str, Any]:
    """Prints throughput, p50/p99 per route and tenant, counts by status, and the 429/503
    answers without a valid `Retry-After`; returns the figures."""
    lines = list(lines)
    by_route: dict[tuple[str, str], list[float]] = defaultdict(list)
    statuses: Counter[tuple[str, int]] = Counter()
    for line in lines:
        by_route[(line["route"], line["tenant"])].append(line["ms"])
        statuses[(line["route"], line["status"])] += 1
    ok = sum(1 for line in lines if 200 <= line["status"] < 300)
    print(
        f"{len(lines)} requests in {seconds:.0f} s: {len(lines) / seconds:.1f} req/s, "
        f"{ok / seconds:.1f} answered 2xx/s"
    )
    print(f"{'route':18} {'tenant':9} {'n':>6} {'p50 ms':>9} {'p99 ms':>9} {'max ms':>9}")
    for (route, tenant), samples in sorted(by_route.items()):
        print(
            f"{route:18} {tenant:9} {len(samples):6d} {percentile(samples, 0.5):9.1f} "
            f"{percentile(samples, 0.99):9.1f} {max(samples):9.1f}"
        )
    print("status counts:", ", ".join(f"{r} {s}: {n}" for (r, s), n in sorted(statuses.items())))
    limited = [line for line in lines if line["status"] in (429, 503)]
    missing = [line for line in limited if not line.get("retry_after")]
    print(f"429/503 answers: {len(limited)}, without a valid Retry-After: {len(missing)}")
    server_errors = [line for line in lines if line["status"] >= 500 and line["status"] != 503]
    transport = [line for line in lines if line["status"] == 0]
    for line in (server_errors + transport)[:5]:
        print(f"  e.g. {line['route']} {line['status']}: {line.get('detail') or line.get('error')}")
    return {
        "requests": len(lines),
        "five_xx": sum(1 for line in lines if line["status"] >= 500),
        "transport_errors": len(transport),
        "retry_after_missing": len(missing),
        "p99": {key: percentile(samples, 0.99) for key, samples in by_route.items()},
    }
