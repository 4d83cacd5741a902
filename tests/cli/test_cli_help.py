"""`agentur --help` lists every command without importing the parts behind them."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import typer
from typer.testing import CliRunner

import agentur
from agentur.cli.main import app

ROOT = Path(agentur.__file__).resolve().parents[1]
COMMANDS = {"serve", "ask", "index", "search"}
GROUPS = {"db", "users", "mandates", "keys", "blobs", "assistants"}
# What a command pulls in; none of it is needed to show the help.
HEAVY = ("sqlalchemy", "fastapi", "alembic", "agentur.runtime", "agentur.storage", "agentur.ai")


def test_help_lists_every_command_and_group() -> None:
    result = CliRunner().invoke(app, ["--help"], terminal_width=200)
    assert result.exit_code == 0, result.output
    registered = set(typer.main.get_command(app).commands)  # type: ignore[attr-defined]
    assert registered >= COMMANDS | GROUPS
    listed = {line.split()[1] for line in result.output.splitlines() if line.startswith("│ ")}
    assert registered <= listed, registered - listed


def test_help_in_a_fresh_interpreter_imports_no_part() -> None:
    script = (
        "import json, sys\n"
        "from agentur.cli.main import app\n"
        "try:\n"
        "    app(['--help'])\n"
        "except SystemExit as done:\n"
        "    assert not done.code, done.code\n"
        "print(json.dumps(sorted(sys.modules)))\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", script], cwd=ROOT, capture_output=True, text=True, timeout=120
    )
    assert done.returncode == 0, done.stderr
    modules = json.loads(done.stdout.strip().splitlines()[-1])
    assert "typer" in modules and "agentur.cli.knowledge_commands" in modules
    loaded = [m for m in modules if m.split(".")[0] in HEAVY or m.startswith(HEAVY)]
    assert not loaded, loaded
