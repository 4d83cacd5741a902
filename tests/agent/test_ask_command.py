"""`agentur ask`: one turn against the local storage; a clear one-line error without a model."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest
from typer.testing import CliRunner

from agentur.accounts.bootstrap import ensure_local_admin
from agentur.cli.main import app
from agentur.config import Settings
from agentur.runtime import Runtime


def _bootstrap(data_dir: Path) -> None:
    async def work() -> None:
        runtime = Runtime.from_settings(Settings(data_dir=data_dir))
        try:
            await runtime.migrate()
            await ensure_local_admin(runtime.database, data_dir / "admin.key")
        finally:
            await runtime.close()

    asyncio.run(work())


def test_ask_without_a_model_says_so_in_one_line(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("AGENTUR_DATA_DIR", str(tmp_path / "data"))
    monkeypatch.delenv("AGENTUR_SCRIPTED", raising=False)
    result = CliRunner().invoke(app, ["ask", "hello"])
    assert result.exit_code == 1
    assert result.output.strip().splitlines() == [
        "error: no model is configured; set e.g. AGENTUR_OPENAI_API_KEY or "
        "AGENTUR_OPENAI_COMPATIBLE_BASE_URL"
    ]


def test_ask_runs_a_turn_with_the_scripted_model(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("AGENTUR_DATA_DIR", str(tmp_path / "data"))
    monkeypatch.setenv("AGENTUR_SCRIPTED", "1")
    _bootstrap(tmp_path / "data")
    result = CliRunner().invoke(app, ["ask", "hello", "--timezone", "Europe/Zurich"])
    assert result.exit_code == 0, result.output
    assert "(script finished)" in result.output
    assert "completed · 1 round(s)" in result.output
