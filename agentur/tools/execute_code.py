"""`execute_code`: Python with numpy and pandas in the bubblewrap sandbox, on copies of
workspace files; files the code writes are saved back to the workspace as new files.

Offered in the `code` toolbox only where the sandbox works (see `agentur.sandbox`)."""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, Field

from agentur.errors import InvalidInputError
from agentur.sandbox.run_python import SandboxLimits, run_python, safe_name, unavailable_reason
from agentur.settings import AllSettings
from agentur.tools.tool import Tool, ToolContext
from agentur.tools.workspace_access import file_service
from agentur.tools.workspace_files import describe

MAX_CODE_CHARS = 100_000
MAX_INPUT_FILES = 20
# What goes back to the model of each stream; the whole is bounded by the output limit anyway.
MAX_STREAM_CHARS = 8_000
# The sandbox enforces its own wall-time limit; this only keeps the wrapper from cutting in.
TOOL_TIMEOUT_SECONDS = 3_600.0


def sandbox_unavailable(settings: AllSettings) -> str | None:
    """Why `execute_code` cannot run on this host (for the toolbox), or None."""
    return unavailable_reason(settings.sandbox.sandbox_bwrap_path)


class ExecuteCodeArguments(BaseModel):
    code: str = Field(min_length=1, max_length=MAX_CODE_CHARS, description="Python 3 source.")
    input_file_ids: list[str] = Field(
        default_factory=list,
        max_length=MAX_INPUT_FILES,
        description="Workspace files copied by name into the working directory.",
    )
    folder_id: str | None = Field(default=None, description="Where output files are saved.")


def _tail(text: str) -> str:
    return text if len(text) <= MAX_STREAM_CHARS else "…" + text[-MAX_STREAM_CHARS:]


async def execute_code(args: ExecuteCodeArguments, context: ToolContext) -> dict[str, Any]:
    settings = context.runtime.all_settings.sandbox
    inputs: dict[str, bytes] = {}
    async with file_service(context) as files:
        for file_id in args.input_file_ids:
            file, data = await files.read_bytes(file_id)
            name = safe_name(file.name)
            if name in inputs:
                raise InvalidInputError(f"two input files are named {name!r}; rename one first")
            inputs[name] = data
    result = await run_python(
        args.code, inputs, SandboxLimits.from_settings(settings), settings.sandbox_bwrap_path
    )
    saved = []
    if result.files:
        async with file_service(context) as files:
            for name, data in result.files.items():
                stored = await files.write_bytes(name, data, folder_id=args.folder_id)
                saved.append(describe(stored))
            await files.commit()
    return {
        "exit_code": result.exit_code,
        "stdout": _tail(result.stdout),
        "stderr": _tail(result.stderr),
        "duration_seconds": round(result.duration_seconds, 3),
        "saved_files": saved,
    }


TOOLS: list[Tool] = [
    Tool(
        "execute_code",
        "Run Python 3 (numpy, pandas) in an isolated sandbox without network. Input files are "
        "in the working directory; files the code writes there are saved to the workspace.",
        ExecuteCodeArguments,
        execute_code,
        toolbox="code",
        timeout_seconds=TOOL_TIMEOUT_SECONDS,
    )
]
