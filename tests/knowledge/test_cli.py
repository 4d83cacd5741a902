"""`agentur index PATH…` skips unchanged files and `agentur search` finds what was indexed
(SQLite, lexical only here so the test needs no model)."""

from __future__ import annotations

from pathlib import Path

import pytest
from typer.testing import CliRunner

from agentur.cli.main import app


def test_index_folder_twice_then_search(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    docs = tmp_path / "docs"
    (docs / "sub").mkdir(parents=True)
    (docs / "guide.md").write_text("# Guide\n\nGlacier tours start in Zermatt.")
    (docs / "sub" / "notes.txt").write_text("Lake Geneva boat timetable.")
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("AGENTUR_DATA_DIR", str(tmp_path / "data"))
    monkeypatch.setenv("AGENTUR_DATABASE_URL", "")
    monkeypatch.setenv("AGENTUR_KNOWLEDGE_EMBEDDING_MODEL", "")
    runner = CliRunner()

    first = runner.invoke(app, ["index", str(docs)])
    assert first.exit_code == 0, first.output
    assert "2 files: 2 indexed" in first.output
    second = runner.invoke(app, ["index", str(docs)])
    assert "2 files: 2 unchanged" in second.output

    found = runner.invoke(app, ["search", "Zermatt glacier"])
    assert found.exit_code == 0 and "via lexical" in found.output
    assert "docs ∕ guide.md" in found.output.splitlines()[1]

    missing = runner.invoke(app, ["index", str(tmp_path / "nope")])
    assert missing.exit_code == 1 and "neither a file nor a folder" in missing.output
