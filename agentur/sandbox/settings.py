"""Sandbox settings: every limit of `execute_code`. Flat names with the `sandbox_` prefix,
so they read as `AGENTUR_SANDBOX_*` in the environment."""

from __future__ import annotations

from pydantic import Field

from agentur.config import MEBIBYTE, PartSettings, count, seconds


class SandboxSettings(PartSettings):
    sandbox_bwrap_path: str = Field(
        default="bwrap",
        description="The bubblewrap binary (name on PATH or absolute path). When it is missing "
        "or cannot create namespaces here, `execute_code` is not offered and says why.",
    )
    sandbox_wall_seconds: float = seconds(
        30.0, "Wall-clock limit of one `execute_code` run.", most=3600
    )
    sandbox_cpu_seconds: int = Field(
        default=20, ge=1, le=3600, description="CPU-time limit (RLIMIT_CPU) of one run."
    )
    sandbox_memory_bytes: int = Field(
        default=1024 * MEBIBYTE,
        ge=64 * MEBIBYTE,
        description="Address-space limit (RLIMIT_AS) of each process in the sandbox.",
    )
    sandbox_max_processes: int = count(
        32,
        "Processes and threads one run may have at once (RLIMIT_NPROC, counted in "
        "the run's own user namespace); stops fork bombs without touching other runs.",
        most=4096,
    )
    sandbox_max_output_bytes: int = Field(
        default=1 * MEBIBYTE,
        ge=1024,
        description="Stdout plus stderr a run may print; the run is stopped beyond it.",
    )
    sandbox_max_file_bytes: int = Field(
        default=50 * MEBIBYTE,
        ge=1024,
        description="Largest file a run may write (RLIMIT_FSIZE); also the cap on the sum of "
        "files saved back to the workspace.",
    )
    sandbox_max_output_files: int = count(
        50,
        "Files one run may leave in its working directory to be saved back; more "
        "and nothing is saved.",
        most=1000,
    )
    sandbox_uid: int = Field(
        default=65534,
        ge=1,
        description="When the service runs as root, the sandbox runs as this unprivileged uid "
        "(and its gid), because the kernel does not apply RLIMIT_NPROC to root.",
    )
