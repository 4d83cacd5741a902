"""Run untrusted Python in a bubblewrap sandbox.

Isolation comes from Linux namespaces, not from a timeout: a new user, PID, IPC, UTS, cgroup and
network namespace (`--unshare-all`: no network at all, not even the host's loopback), a fresh
root holding only read-only binds of the Python runtime and the system libraries it loads, the
scratch directory as the only writable host path, an empty environment. Resource limits are
rlimits set before bubblewrap starts (inherited by everything inside), plus a wall-clock limit
and an output cap enforced here. When the service runs as root the sandbox runs as an
unprivileged uid, because the kernel never applies RLIMIT_NPROC to root.

The process limit is set inside the run's own user namespace, by a launcher that bubblewrap
starts: since Linux 5.14 the kernel counts RLIMIT_NPROC per user namespace, checking the
parent's count against the limit in force when the namespace was made. Set before bubblewrap
(as the other limits are), it would cap every process of the sandbox uid on the host, so one
run's fork bomb starved all others; set inside, it caps that run alone.
"""

from __future__ import annotations

import asyncio
import contextlib
import ctypes
import os
import resource
import shutil
import signal
import stat
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path

from agentur.errors import AgenturError, InvalidInputError
from agentur.sandbox.settings import SandboxSettings

SCRATCH = "/sandbox"  # the working directory inside: input files in, output files out
CODE = "/code/main.py"
# Runs first inside the sandbox: caps the processes of this run's user namespace, then becomes
# the user's program (argv: the limit, the code).
LAUNCHER = (
    "import os, resource, sys\n"
    "limit = int(sys.argv[1])\n"
    "resource.setrlimit(resource.RLIMIT_NPROC, (limit, limit))\n"
    "os.execv(sys.executable, [sys.executable, '-s', sys.argv[2]])\n"
)
READ_CHUNK = 64 * 1024
PROBE_TIMEOUT_SECONDS = 10.0
# Threads count against RLIMIT_NPROC; BLAS would start one per core on import.
SINGLE_THREAD_ENV = ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS")


class SandboxLimitError(AgenturError, status_code=422, title="Sandbox limit exceeded"):
    """A run stopped by one of its limits; the message names the limit and its value."""


class SandboxUnavailableError(AgenturError, status_code=503, title="Sandbox unavailable"):
    pass


@dataclass(frozen=True, slots=True)
class SandboxLimits:
    wall_seconds: float = 30.0
    cpu_seconds: int = 20
    memory_bytes: int = 1024 * 1024 * 1024
    max_processes: int = 32
    max_output_bytes: int = 1024 * 1024
    max_file_bytes: int = 50 * 1024 * 1024
    max_output_files: int = 50
    uid: int = 65534

    @classmethod
    def from_settings(cls, settings: SandboxSettings) -> SandboxLimits:
        return cls(
            wall_seconds=settings.sandbox_wall_seconds,
            cpu_seconds=settings.sandbox_cpu_seconds,
            memory_bytes=settings.sandbox_memory_bytes,
            max_processes=settings.sandbox_max_processes,
            max_output_bytes=settings.sandbox_max_output_bytes,
            max_file_bytes=settings.sandbox_max_file_bytes,
            max_output_files=settings.sandbox_max_output_files,
            uid=settings.sandbox_uid,
        )


@dataclass(slots=True)
class SandboxResult:
    exit_code: int
    stdout: str
    stderr: str
    duration_seconds: float
    # Files the code created or changed in the scratch directory (name → bytes).
    files: dict[str, bytes] = field(default_factory=dict)


def _runtime_prefixes() -> list[str]:
    """The Python installation and the virtualenv (numpy, pandas) outside /usr."""
    return [p for p in dict.fromkeys((sys.base_prefix, sys.prefix)) if not p.startswith("/usr/")]


def _runtime_binds(sources: dict[str, str]) -> list[str]:
    """Read-only binds of what the interpreter needs: /usr (libc, ld.so), the top-level
    directories as the host has them (often symlinks into /usr), the Python installation and
    the virtualenv. Nothing else of the host — no /etc, no data dir. `sources` maps each
    runtime prefix to where bubblewrap finds it (see `_stage_runtime`)."""
    args = ["--ro-bind", "/usr", "/usr"]
    for top in ("/bin", "/lib", "/lib64", "/sbin"):
        path = Path(top)
        if path.is_symlink():
            args += ["--symlink", os.readlink(path), top]
        elif path.is_dir():
            args += ["--ro-bind", top, top]
    for prefix, source in sources.items():
        args += ["--ro-bind", source, prefix]
    return args


def _command(
    bwrap: str, scratch: Path, code_dir: Path, limits: SandboxLimits, sources: dict[str, str]
) -> list[str]:
    env = {
        "PATH": "/usr/bin:/bin",
        "HOME": SCRATCH,
        "LANG": "C.UTF-8",
        "PYTHONIOENCODING": "utf-8",
        "PYTHONDONTWRITEBYTECODE": "1",
        "MPLCONFIGDIR": "/tmp",
        **dict.fromkeys(SINGLE_THREAD_ENV, "1"),
    }
    setenv = [part for name, value in env.items() for part in ("--setenv", name, value)]
    return [
        bwrap,
        "--unshare-all",
        "--die-with-parent",
        "--new-session",
        "--hostname", "sandbox",
        "--clearenv", *setenv,
        # The private /tmp first: a runtime that lives below /tmp (a CI clone's virtualenv)
        # is then bound on top of it instead of being hidden by it.
        "--size", str(limits.max_file_bytes), "--tmpfs", "/tmp",
        *_runtime_binds(sources),
        "--proc", "/proc",
        "--dev", "/dev",
        "--bind", str(scratch), SCRATCH,
        "--ro-bind", str(code_dir), str(Path(CODE).parent),
        "--chdir", SCRATCH,
        sys.executable, "-I", "-S", "-c", LAUNCHER, str(limits.max_processes), CODE,
    ]  # fmt: skip


def _stage_runtime(root: Path) -> dict[str, str]:
    """As root, the sandbox user may be unable to reach the runtime (pyenv below /root, mode
    0700). Each prefix then gets a staging directory in the run's own temp dir, onto which the
    child binds the prefix in a private mount namespace before dropping root (`_preexec`)."""
    if os.geteuid() != 0:
        return {prefix: prefix for prefix in _runtime_prefixes()}
    sources = {}
    for number, prefix in enumerate(_runtime_prefixes()):
        staging = root / f"runtime{number}"
        staging.mkdir()
        sources[prefix] = str(staging)
    return sources


_MS_REC, _MS_PRIVATE, _MS_BIND, _MS_RDONLY, _MS_REMOUNT = 0x4000, 0x40000, 0x1000, 0x1, 0x20
_CLONE_NEWNS = 0x20000


def _private_binds(sources: dict[str, str]) -> Callable[[], None]:
    libc = ctypes.CDLL(None, use_errno=True)  # loaded before the fork, used after it
    mounts = [(p.encode(), s.encode()) for p, s in sources.items() if p != s]

    def check(result: int, what: str) -> None:
        if result != 0:
            raise OSError(ctypes.get_errno(), what)

    def apply() -> None:
        if not mounts:
            return
        check(libc.unshare(_CLONE_NEWNS), "unshare(CLONE_NEWNS)")
        check(libc.mount(None, b"/", None, _MS_REC | _MS_PRIVATE, None), "make / private")
        for prefix, staging in mounts:
            check(libc.mount(prefix, staging, None, _MS_BIND | _MS_REC, None), "bind runtime")

    return apply


def _preexec(limits: SandboxLimits, sources: dict[str, str]) -> Callable[[], None]:
    bind_runtime = _private_binds(sources)

    def apply() -> None:
        bind_runtime()
        cpu = limits.cpu_seconds
        resource.setrlimit(resource.RLIMIT_CPU, (cpu, cpu + 1))  # SIGXCPU, then SIGKILL
        resource.setrlimit(resource.RLIMIT_AS, (limits.memory_bytes, limits.memory_bytes))
        resource.setrlimit(resource.RLIMIT_FSIZE, (limits.max_file_bytes, limits.max_file_bytes))
        # RLIMIT_NPROC is set inside the run's user namespace (LAUNCHER), not here.
        resource.setrlimit(resource.RLIMIT_CORE, (0, 0))
        if os.geteuid() == 0:
            os.setgroups([])
            os.setgid(limits.uid)
            os.setuid(limits.uid)

    return apply


def resolve_bwrap(path: str) -> str | None:
    return shutil.which(path)


@lru_cache(maxsize=8)
def unavailable_reason(bwrap_path: str) -> str | None:
    """Why the sandbox cannot run on this host, or None. Probes once per binary: a missing
    binary, and namespaces the kernel or container refuses, both show up here."""
    binary = resolve_bwrap(bwrap_path)
    if binary is None:
        return f"the sandbox needs bubblewrap, and {bwrap_path!r} is not installed on this host"
    with tempfile.TemporaryDirectory(prefix="agentur-sandbox-probe-") as root:
        scratch, code_dir = _prepare_dirs(Path(root), "print('ok')", SandboxLimits().uid)
        sources = _stage_runtime(Path(root))
        try:
            completed = subprocess.run(
                _command(binary, scratch, code_dir, SandboxLimits(), sources),
                preexec_fn=_preexec(SandboxLimits(), sources),
                capture_output=True,
                timeout=PROBE_TIMEOUT_SECONDS,
                check=False,
            )
        except (OSError, subprocess.SubprocessError) as error:
            return f"bubblewrap could not start here: {error}"
    if completed.returncode != 0 or completed.stdout.strip() != b"ok":
        detail = completed.stderr.decode(errors="replace").strip()[:300]
        return f"bubblewrap cannot create its namespaces on this host: {detail}"
    return None


def _prepare_dirs(root: Path, code: str, uid: int) -> tuple[Path, Path]:
    scratch, code_dir = root / "scratch", root / "code"
    scratch.mkdir()
    code_dir.mkdir()
    (code_dir / "main.py").write_text(code)
    if os.geteuid() == 0:
        # The unprivileged sandbox user must write the scratch dir and read the code.
        os.chmod(root, 0o711)
        os.chown(scratch, uid, uid)
        os.chmod(code_dir, 0o755)
        os.chmod(code_dir / "main.py", 0o644)
    return scratch, code_dir


def safe_name(name: str) -> str:
    base = Path(name).name
    if base in ("", ".", "..") or base != name.replace("\\", "/").rsplit("/", 1)[-1]:
        raise InvalidInputError(f"{name!r} is not usable as a file name in the sandbox")
    return base


def _collect(scratch: Path, inputs: dict[str, bytes], limits: SandboxLimits) -> dict[str, bytes]:
    """New or changed regular files at the top of the scratch directory (subdirectories are
    not saved), never following links (a symlink to a host path would otherwise be read outside
    the sandbox, by us)."""
    found: dict[str, bytes] = {}
    total = 0
    for entry in sorted(os.scandir(scratch), key=lambda e: e.name):
        info = entry.stat(follow_symlinks=False)
        if not stat.S_ISREG(info.st_mode):
            continue
        fd = os.open(entry.path, os.O_RDONLY | os.O_NOFOLLOW)
        with os.fdopen(fd, "rb") as handle:
            data = handle.read(limits.max_file_bytes + 1)
        if inputs.get(entry.name) == data:
            continue
        total += len(data)
        if len(found) >= limits.max_output_files:
            raise SandboxLimitError(
                f"the code left more than {limits.max_output_files} new or changed files "
                "(AGENTUR_SANDBOX_MAX_OUTPUT_FILES); nothing was saved"
            )
        if total > limits.max_file_bytes:
            raise SandboxLimitError(
                f"the files written add up to more than {limits.max_file_bytes} bytes "
                "(AGENTUR_SANDBOX_MAX_FILE_BYTES); nothing was saved"
            )
        found[entry.name] = data
    return found


async def _read_capped(
    stream: asyncio.StreamReader, sink: bytearray, budget: list[int], overflow: asyncio.Event
) -> None:
    # Reads on to EOF even past the cap (discarding): a paused pipe would never see EOF, and
    # asyncio's `Process.wait()` waits for the pipes as well as for the exit.
    while chunk := await stream.read(READ_CHUNK):
        budget[0] -= len(chunk)
        if budget[0] < 0:
            overflow.set()
        else:
            sink += chunk


def _kill(process: asyncio.subprocess.Process) -> None:
    with contextlib.suppress(ProcessLookupError):
        os.killpg(process.pid, signal.SIGKILL)


async def run_python(
    code: str, inputs: dict[str, bytes], limits: SandboxLimits, bwrap_path: str = "bwrap"
) -> SandboxResult:
    """Run `code` with `inputs` as files in its working directory; raise SandboxLimitError
    when a limit stops it. A non-zero exit of the code itself is a normal result."""
    if why := await asyncio.to_thread(unavailable_reason, bwrap_path):
        raise SandboxUnavailableError(why)
    binary = resolve_bwrap(bwrap_path) or bwrap_path
    with tempfile.TemporaryDirectory(prefix="agentur-sandbox-") as root:
        scratch, code_dir = _prepare_dirs(Path(root), code, limits.uid)
        for name, data in inputs.items():
            (scratch / safe_name(name)).write_bytes(data)
        if os.geteuid() == 0:
            for name in inputs:
                os.chown(scratch / name, limits.uid, limits.uid)
        started = time.monotonic()
        sources = _stage_runtime(Path(root))
        process = await asyncio.create_subprocess_exec(
            *_command(binary, scratch, code_dir, limits, sources),
            stdin=asyncio.subprocess.DEVNULL,
            stdout=asyncio.subprocess.PIPE,
            stderr=asyncio.subprocess.PIPE,
            preexec_fn=_preexec(limits, sources),
            start_new_session=True,
        )
        stdout, stderr = bytearray(), bytearray()
        budget, overflow = [limits.max_output_bytes], asyncio.Event()
        assert process.stdout is not None and process.stderr is not None
        readers = asyncio.gather(
            _read_capped(process.stdout, stdout, budget, overflow),
            _read_capped(process.stderr, stderr, budget, overflow),
        )
        overflow_wait = asyncio.ensure_future(overflow.wait())
        try:
            # One deadline for everything: code that closes its pipes and keeps running is
            # still stopped at the wall time limit.
            async with asyncio.timeout(limits.wall_seconds):
                await asyncio.wait({readers, overflow_wait}, return_when=asyncio.FIRST_COMPLETED)
                if overflow.is_set():
                    raise SandboxLimitError(
                        f"the code printed more than {limits.max_output_bytes} bytes "
                        "(AGENTUR_SANDBOX_MAX_OUTPUT_BYTES) and was stopped"
                    )
                exit_code = await process.wait()
        except TimeoutError:
            raise SandboxLimitError(
                f"the code ran longer than the wall time limit of {limits.wall_seconds:g} s "
                "(AGENTUR_SANDBOX_WALL_SECONDS) and was stopped"
            ) from None
        finally:
            _kill(process)  # the PID namespace ends with bubblewrap, and the pipes with it
            overflow_wait.cancel()
            await readers
            await process.wait()
        duration = time.monotonic() - started
        out, err = stdout.decode(errors="replace"), stderr.decode(errors="replace")
        _raise_for_limit(exit_code, err, limits)
        files = await asyncio.to_thread(_collect, scratch, inputs, limits)
    return SandboxResult(exit_code, out, err, duration, files)


def _raise_for_limit(exit_code: int, stderr: str, limits: SandboxLimits) -> None:
    """Name the limit that ended the run, from bubblewrap's exit code (128 + signal when the
    code was killed) and Python's last words."""
    signal_number = exit_code - 128 if exit_code > 128 else -exit_code if exit_code < 0 else 0
    if signal_number in (signal.SIGXCPU, signal.SIGKILL):
        raise SandboxLimitError(
            f"the code used more than the CPU time limit of {limits.cpu_seconds} s "
            "(AGENTUR_SANDBOX_CPU_SECONDS) and was stopped"
        )
    tail = stderr[-2000:]
    if exit_code != 0 and ("MemoryError" in tail or "Cannot allocate memory" in tail):
        raise SandboxLimitError(
            f"the code needed more than the memory limit of {limits.memory_bytes} bytes "
            "(AGENTUR_SANDBOX_MEMORY_BYTES)"
        )
    if exit_code != 0 and "Resource temporarily unavailable" in tail:
        raise SandboxLimitError(
            f"the code started more than {limits.max_processes} processes or threads "
            "(AGENTUR_SANDBOX_MAX_PROCESSES)"
        )
    if signal_number == signal.SIGXFSZ or "File too large" in tail:
        raise SandboxLimitError(
            f"the code wrote a file larger than {limits.max_file_bytes} bytes "
            "(AGENTUR_SANDBOX_MAX_FILE_BYTES)"
        )
