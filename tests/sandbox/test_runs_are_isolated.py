"""One run's process limit never touches another run's (real bubblewrap): a fork bomb holds its
run at the limit while three other runs — same sandbox uid, as every run of a service has —
start, fork workers of their own and finish correctly; the bomb ends with the process-limit
error. As root the test also watches the host: the bomb never holds more processes than its
limit, and nothing of the sandbox uid is left once the runs are over."""

from __future__ import annotations

import asyncio
import os
import time
from collections import Counter
from dataclasses import replace
from pathlib import Path

import pytest

from agentur.sandbox.run_python import (
    SandboxLimitError,
    SandboxLimits,
    run_python,
    unavailable_reason,
)

pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(
        unavailable_reason("bwrap") is not None, reason=str(unavailable_reason("bwrap"))
    ),
]

AS_ROOT = os.geteuid() == 0
# A uid of this test alone (as root), so other sandbox runs on the machine do not count.
UID = 1_500_000_000 + os.getpid() % 1_000_000
LIMITS = SandboxLimits(
    wall_seconds=120.0,  # generous: 2 shared cores; the bomb ends itself, see BOMB
    cpu_seconds=20,
    memory_bytes=512 * 1024 * 1024,
    max_processes=12,
    max_output_bytes=256 * 1024,
    uid=UID,
)
HOLD_SECONDS = 12.0
# Forks until the limit, then keeps every process alive (retrying) for HOLD_SECONDS; then every
# process forks unguarded until the kernel refuses, so the run ends on the process limit.
BOMB = f"""
import os, time
deadline = time.monotonic() + {HOLD_SECONDS}
while time.monotonic() < deadline:
    try:
        os.fork()
    except BlockingIOError:
        time.sleep(0.05)
while True:
    os.fork()
"""
# Each worker forks four children that compute a share of a sum and report it through pipes.
WORKER = """
import os
shares = []
for part in range(4):
    read, write = os.pipe()
    if os.fork() == 0:
        os.close(read)
        os.write(write, str(sum(i * i for i in range(part, 400_000, 4))).encode())
        os._exit(0)
    os.close(write)
    shares.append(read)
total = 0
for read in shares:
    total += int(os.read(read, 64))
    os.wait()
print(total)
"""
EXPECTED = sum(i * i for i in range(400_000))


def sandbox_processes() -> Counter[str]:
    """Processes of the test's sandbox uid on the host, by PID namespace (one per run)."""
    found: Counter[str] = Counter()
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            status = (entry / "status").read_text()
            uid = next(line.split()[1] for line in status.splitlines() if line.startswith("Uid:"))
            if int(uid) == UID:
                found[os.readlink(entry / "ns" / "pid")] += 1
        except (OSError, StopIteration):
            continue  # ended meanwhile
    return found


async def wait_until_saturated(bomb: asyncio.Task[object]) -> int:
    """The bomb's namespace at its limit (as root, seen from the host); else a fixed wait."""
    if not AS_ROOT:
        await asyncio.sleep(3.0)
        return 0
    deadline = time.monotonic() + 60.0
    while time.monotonic() < deadline and not bomb.done():
        largest = max(sandbox_processes().values(), default=0)
        if largest >= LIMITS.max_processes - 1:  # its bubblewrap init may be counted too
            return largest
        await asyncio.sleep(0.1)
    raise AssertionError("the fork bomb never reached its process limit")


async def test_a_fork_bomb_does_not_stop_other_runs() -> None:
    bomb = asyncio.create_task(run_python(BOMB, {}, LIMITS))
    peak = await wait_until_saturated(bomb)
    workers = [asyncio.create_task(run_python(WORKER, {}, LIMITS)) for _ in range(3)]
    while AS_ROOT and not all(worker.done() for worker in workers):
        # A PID namespace holds the processes of one run: the bomb's never exceeds its limit
        # (its launcher, then the code, and every fork inside count; bubblewrap's init too).
        peak = max(peak, *sandbox_processes().values(), 0)
        await asyncio.sleep(0.1)
    results = await asyncio.gather(*workers)
    assert not bomb.done(), "the bomb ended before the other runs did: nothing was shown"
    for result in results:
        assert result.exit_code == 0, result.stderr
        assert result.stdout.strip() == str(EXPECTED)
    with pytest.raises(SandboxLimitError, match="started more than 12 processes"):
        await bomb
    if AS_ROOT:
        assert LIMITS.max_processes - 1 <= peak <= LIMITS.max_processes
        for _ in range(100):  # a PID namespace's last processes may take a moment to go
            if not sandbox_processes():
                break
            await asyncio.sleep(0.1)
        assert not sandbox_processes(), "sandbox processes outlived their runs"


async def test_a_worker_alone_is_bound_by_its_own_limit() -> None:
    """The same worker code with a limit below its needs fails: the limit is real per run."""
    with pytest.raises(SandboxLimitError, match="started more than 3 processes"):
        await run_python(WORKER, {}, replace(LIMITS, max_processes=3))
