"""`agentur serve` as a real process on 127.0.0.1, for tests of what only a running server
shows: its log, its HTTP parser, the files it leaves in its data dir, its OpenAPI contract."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

import httpx

ROOT = Path(__file__).resolve().parents[2]
START_TIMEOUT = 60.0


@dataclass(frozen=True)
class Served:
    url: str
    port: int
    data_dir: Path
    log: Path

    def output(self) -> str:
        return self.log.read_text(errors="replace")


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


@contextmanager
def serve(data_dir: Path, **settings: str) -> Iterator[Served]:
    """Start `agentur serve` over `data_dir` (SQLite there unless settings say otherwise)."""
    port = _free_port()
    log = data_dir.parent / f"{data_dir.name}-serve.log"
    env = {
        **os.environ,
        "AGENTUR_DATA_DIR": str(data_dir),
        "AGENTUR_PORT": str(port),
        "AGENTUR_DATABASE_URL": "",
        **{f"AGENTUR_{key.upper()}": value for key, value in settings.items()},
    }
    command = [sys.executable, "-c", "from agentur.cli.main import app; app()", "serve"]
    with log.open("wb") as output:
        process = subprocess.Popen(command, cwd=ROOT, env=env, stdout=output, stderr=output)
    served = Served(f"http://127.0.0.1:{port}", port, data_dir, log)
    try:
        deadline = time.monotonic() + START_TIMEOUT
        while True:
            assert process.poll() is None, f"agentur serve exited:\n{served.output()}"
            assert time.monotonic() < deadline, f"agentur serve did not start:\n{served.output()}"
            try:
                if httpx.get(f"{served.url}/healthz", timeout=2).status_code == 200:
                    break
            except httpx.TransportError:
                time.sleep(0.2)
        yield served
    finally:
        process.terminate()
        try:
            process.wait(timeout=30)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()
