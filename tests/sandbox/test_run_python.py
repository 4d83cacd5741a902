"""Each sandbox limit, proven by a real attempt to break it. Needs bubblewrap and working
namespaces on the host; `.ci/run` installs bubblewrap."""

from __future__ import annotations

import socket
import time
from dataclasses import replace
from pathlib import Path

import pytest

from agentur.sandbox.run_python import (
    SandboxLimitError,
    SandboxLimits,
    SandboxUnavailableError,
    run_python,
    unavailable_reason,
)

pytestmark = pytest.mark.skipif(
    unavailable_reason("bwrap") is not None, reason=str(unavailable_reason("bwrap"))
)

LIMITS = SandboxLimits(
    wall_seconds=60.0,  # generous: 2 cores shared by many processes; CPU time is the limit here
    cpu_seconds=2,
    memory_bytes=512 * 1024 * 1024,
    max_processes=16,
    max_output_bytes=64 * 1024,
    max_file_bytes=8 * 1024 * 1024,
)


async def test_pandas_reads_an_input_and_writes_a_csv() -> None:
    code = (
        "import pandas as pd\n"
        "df = pd.read_csv('sales.csv')\n"
        "df.groupby('region')['amount'].sum().to_csv('by_region.csv')\n"
        "print(len(df))\n"
    )
    sales = b"region,amount\nNord,10\nSued,5\nNord,7\n"
    result = await run_python(code, {"sales.csv": sales}, LIMITS)
    assert result.exit_code == 0, result.stderr
    assert result.stdout.strip() == "3"
    # the unchanged input is not an output
    assert result.files == {"by_region.csv": b"region,amount\nNord,17\nSued,5\n"}


async def test_no_network_not_even_the_hosts_loopback() -> None:
    listener = socket.create_server(("127.0.0.1", 0))
    listener.settimeout(0.5)
    port = listener.getsockname()[1]
    code = (
        "import socket\n"
        "try:\n"
        f"    socket.create_connection(('127.0.0.1', {port}), timeout=3)\n"
        "    print('connected')\n"
        "except OSError as error:\n"
        "    print(type(error).__name__)\n"
    )
    try:
        result = await run_python(code, {}, LIMITS)
        with pytest.raises(TimeoutError):
            listener.accept()  # nothing ever arrived
    finally:
        listener.close()
    assert result.stdout.strip() == "ConnectionRefusedError"


async def test_host_files_and_the_data_dir_are_not_there(tmp_path: Path) -> None:
    data_dir = tmp_path / "data"
    data_dir.mkdir()
    (data_dir / "agentur.db").write_text("secret")
    code = (
        "import os\n"
        f"for path in ('/etc/hostname', '/etc/passwd', {str(data_dir / 'agentur.db')!r}):\n"
        "    try:\n"
        "        open(path).read()\n"
        "        print('read', path)\n"
        "    except OSError as error:\n"
        "        print(type(error).__name__)\n"
        "print(sorted(os.environ))\n"
    )
    result = await run_python(code, {}, LIMITS)
    lines = result.stdout.splitlines()
    assert lines[:3] == ["FileNotFoundError"] * 3, result.stdout
    # a cleared environment: none of the service's variables (API keys) come along
    assert "AGENTUR" not in lines[3] and "KEY" not in lines[3]


async def test_an_infinite_loop_is_stopped_by_the_cpu_limit() -> None:
    limits = replace(LIMITS, cpu_seconds=1)  # the loop burns all of it: keep it short
    started = time.monotonic()
    with pytest.raises(SandboxLimitError, match="CPU time limit of 1 s"):
        await run_python("while True:\n    pass\n", {}, limits)
    assert time.monotonic() - started < limits.wall_seconds


async def test_sleeping_is_stopped_by_the_wall_time_limit() -> None:
    limits = SandboxLimits(wall_seconds=1.0)
    started = time.monotonic()
    with pytest.raises(SandboxLimitError, match="wall time limit of 1 s"):
        await run_python("import time\ntime.sleep(60)\n", {}, limits)
    assert time.monotonic() - started < 5


async def test_closing_the_pipes_does_not_escape_the_wall_time_limit() -> None:
    code = "import os, time\nos.close(1)\nos.close(2)\ntime.sleep(60)\n"
    started = time.monotonic()
    with pytest.raises(SandboxLimitError, match="wall time limit of 1 s"):
        await run_python(code, {}, SandboxLimits(wall_seconds=1.0))
    assert time.monotonic() - started < 5


async def test_a_memory_bomb_hits_the_memory_limit() -> None:
    with pytest.raises(SandboxLimitError, match="memory limit of 536870912 bytes"):
        await run_python("x = bytearray(2 * 1024**3)\n", {}, LIMITS)


async def test_a_fork_bomb_hits_the_process_limit() -> None:
    started = time.monotonic()
    code = "import os\nwhile True:\n    os.fork()\n"
    with pytest.raises(SandboxLimitError, match="more than 16 processes"):
        await run_python(code, {}, LIMITS)
    assert time.monotonic() - started < LIMITS.wall_seconds


async def test_100_mb_of_output_is_stopped_at_the_output_limit() -> None:
    code = "import sys\nfor _ in range(1600):\n    sys.stdout.write('x' * 65536)\n"
    with pytest.raises(SandboxLimitError, match="printed more than 65536 bytes"):
        await run_python(code, {}, LIMITS)


async def test_a_huge_file_hits_the_file_size_limit() -> None:
    code = "with open('big.bin', 'wb') as f:\n    f.write(b'0' * (64 * 1024 * 1024))\n"
    with pytest.raises(SandboxLimitError, match="larger than 8388608 bytes"):
        await run_python(code, {}, LIMITS)


async def test_too_many_output_files_save_nothing() -> None:
    code = "for i in range(60):\n    open(f'{i}.txt', 'w').write(str(i))\n"
    with pytest.raises(SandboxLimitError, match="more than 50 new or changed files"):
        await run_python(code, {}, LIMITS)


async def test_a_symlink_to_a_host_file_is_not_saved(tmp_path: Path) -> None:
    secret = tmp_path / "secret.txt"
    secret.write_text("host secret")
    code = f"import os\nos.symlink({str(secret)!r}, 'leak.txt')\nopen('ok.txt', 'w').write('1')\n"
    result = await run_python(code, {}, LIMITS)
    assert result.files == {"ok.txt": b"1"}


async def test_a_missing_bubblewrap_says_why() -> None:
    reason = unavailable_reason("/nonexistent/bwrap")
    assert reason is not None and "'/nonexistent/bwrap' is not installed" in reason
    with pytest.raises(SandboxUnavailableError, match="not installed"):
        await run_python("print(1)", {}, LIMITS, bwrap_path="/nonexistent/bwrap")
