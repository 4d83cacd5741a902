"""`agentur features create/import` against an embedded SQLite data dir (in-process CLI)."""

from __future__ import annotations

from pathlib import Path

from typer.testing import CliRunner

from agentur.cli.main import app as cli
from tests.cli.cli_helpers import cli_env
from tests.features.support import JOURNAL_CSV


def test_cli_imports_a_table_and_reports_a_bad_cell(tmp_path: Path) -> None:
    runner = CliRunner()
    env = cli_env(tmp_path / "data")

    def run(*args: str):  # type: ignore[no-untyped-def]
        return runner.invoke(cli, list(args), env=env)

    assert run("mandates", "create", "acme").exit_code == 0
    made = run("users", "create", "ann@acme.test", "--mandate", "acme", "--role", "admin")
    assert made.exit_code == 0, made.output
    created = run("features", "create", "trustee", "--name", "Books", "--user", "ann@acme.test")
    assert created.exit_code == 0, created.output
    instance_id = created.output.strip()

    good = tmp_path / "journal.csv"
    good.write_text(JOURNAL_CSV)
    imported = run(
        "features", "import", instance_id, "journal_entries", str(good), "--user", "ann@acme.test"
    )
    assert imported.exit_code == 0, imported.output
    assert "imported 6 rows into journal_entries" in imported.output

    bad = tmp_path / "bad.csv"
    bad.write_text(JOURNAL_CSV.replace("2026-01-31,2026-01,6000", "31.01.2026,2026-01,6000"))
    refused = run(
        "features", "import", instance_id, "journal_entries", str(bad), "--user", "ann@acme.test"
    )
    assert refused.exit_code == 1
    assert "row 4, column 'entry_date'" in refused.output

    unknown = run(
        "features", "import", "no-such-id", "journal_entries", str(good), "--user", "ann@acme.test"
    )
    assert unknown.exit_code == 1
    assert "feature instance no-such-id not found" in unknown.output
