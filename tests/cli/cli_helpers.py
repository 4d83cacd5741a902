"""Run the installed `agentur` console script the way a person does, in a scratch folder."""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

import httpx

AGENTUR = str(Path(sys.executable).with_name("agentur"))
STARTUP_DEADLINE_S = 60


def cli_env(data_dir: Path, database_url: str | None = None) -> dict[str, str]:
    """The caller's environment without any AGENTUR_* setting, plus the given ones."""
    env = {key: value for key, value in os.environ.items() if not key.startswith("AGENTUR_")}
    env["AGENTUR_DATA_DIR"] = str(data_dir)
    if database_url:
        env["AGENTUR_DATABASE_URL"] = database_url
    return env


def run_cli(cwd: Path, env: dict[str, str], *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [AGENTUR, *args], cwd=cwd, env=env, capture_output=True, text=True, timeout=120
    )


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


@dataclass
class Served:
    base_url: str
    output: Path  # stdout of the server; complete once the block has ended
    pid: int = 0  # to kill it the hard way (a worker that dies)


@contextmanager
def serving(cwd: Path, env: dict[str, str], name: str) -> Iterator[Served]:
    """`agentur serve --port <free>` until the block ends; waits until /healthz answers."""
    port = free_port()
    output = cwd / f"{name}.out"
    with output.open("w") as stdout, (cwd / f"{name}.err").open("w") as stderr:
        process = subprocess.Popen(
            [AGENTUR, "serve", "--port", str(port)],
            cwd=cwd,
            env=env,
            stdout=stdout,
            stderr=stderr,
        )
        try:
            base_url = f"http://127.0.0.1:{port}"
            _wait_until_healthy(process, base_url, cwd / f"{name}.err")
            yield Served(base_url=base_url, output=output, pid=process.pid)
        finally:
            process.send_signal(signal.SIGINT)
            try:
                process.wait(timeout=30)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait()


def _wait_until_healthy(process: subprocess.Popen[bytes], base_url: str, log: Path) -> None:
    deadline = time.monotonic() + STARTUP_DEADLINE_S
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise AssertionError(f"agentur serve exited early:\n{log.read_text()}")
        try:
            if httpx.get(f"{base_url}/healthz", timeout=2).status_code == 200:
                return
        except httpx.TransportError:
            pass
        time.sleep(0.1)
    raise AssertionError(f"agentur serve did not become healthy:\n{log.read_text()}")
