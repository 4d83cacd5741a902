"""Administering users, mandates and keys with the real `agentur` script (embedded SQLite)."""

from __future__ import annotations

import asyncio
from pathlib import Path

import httpx
import pytest
from typer.testing import CliRunner

from agentur.api.app import create_app
from agentur.cli.main import app as cli
from agentur.config import Settings
from agentur.runtime import Runtime
from tests.cli.cli_helpers import cli_env, run_cli


async def _status_with_key(data_dir: Path, key: str) -> int:
    """Ask the API (in-process, same database) whether `key` is accepted."""
    runtime = Runtime.from_settings(Settings(data_dir=data_dir, database_url=None))
    try:
        transport = httpx.ASGITransport(app=create_app(runtime=runtime))
        async with httpx.AsyncClient(transport=transport, base_url="http://cli.test") as client:
            response = await client.get("/v1/me", headers={"Authorization": f"Bearer {key}"})
            return response.status_code
    finally:
        await runtime.close()


def test_admin_commands_and_their_errors(tmp_path: Path) -> None:
    data_dir = tmp_path / "data"
    env = cli_env(data_dir)

    upgraded = run_cli(tmp_path, env, "db", "upgrade")
    assert upgraded.returncode == 0, upgraded.stderr
    assert "up to date (sqlite)" in upgraded.stdout
    assert (data_dir / "agentur.db").is_file()

    mandate = run_cli(tmp_path, env, "mandates", "create", "acme")
    assert mandate.returncode == 0, mandate.stderr
    user = run_cli(
        tmp_path, env, "users", "create", "Bob@Acme.test", "--mandate", "acme", "--role", "viewer"
    )
    assert user.returncode == 0, user.stderr
    issued = run_cli(tmp_path, env, "keys", "create", "bob@acme.test", "--mandate", "acme")
    assert issued.returncode == 0, issued.stderr
    key = issued.stdout.strip()
    assert key.startswith("agt_") and "\n" not in key
    assert asyncio.run(_status_with_key(data_dir, key)) == 200

    revoked = run_cli(tmp_path, env, "keys", "revoke", key)
    assert revoked.returncode == 0 and revoked.stdout.strip() == "revoked", revoked.stderr
    assert asyncio.run(_status_with_key(data_dir, key)) == 401

    # One error through the real script (one line on stderr, non-zero exit) ...
    unknown = run_cli(tmp_path, env, "users", "create", "eve@x.test", "--mandate", "nope")
    assert unknown.returncode == 1
    assert unknown.stderr == "error: no mandate named 'nope'\n"


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (("mandates", "create", "default"), "exists already"),
        (("users", "create", "not-an-address"), "e-mail"),
        (("keys", "create", "nobody@x.test"), "no user"),
        (("keys", "revoke", "no-such-key"), "no API key"),
        # The one name rule (agentur/names.py) holds for names given on the command line too.
        (("mandates", "create", "acme\u202eevil"), "U+202E"),
        (("mandates", "create", "x" * 2_000), "longer than 255 characters"),
    ],
)
def test_cli_errors_are_one_line(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, args: tuple[str, ...], message: str
) -> None:
    """... and the rest in-process, which runs the same code much faster."""
    for name, value in cli_env(tmp_path / "data").items():
        monkeypatch.setenv(name, value)
    monkeypatch.chdir(tmp_path)
    runner = CliRunner()
    for _ in range(2):  # upgrading an up-to-date database is a no-op
        upgraded = runner.invoke(cli, ["db", "upgrade"])
        assert upgraded.exit_code == 0 and "up to date" in upgraded.stdout, upgraded.output
    assert runner.invoke(cli, ["mandates", "create", "default"]).exit_code == 0
    result = runner.invoke(cli, list(args))
    assert result.exit_code == 1, result.output
    assert result.stderr.count("\n") == 1 and message in result.stderr, result.stderr
    assert result.stdout == ""


def test_a_key_name_follows_the_name_rule(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    for name, value in cli_env(tmp_path / "data").items():
        monkeypatch.setenv(name, value)
    monkeypatch.chdir(tmp_path)
    runner = CliRunner()
    assert runner.invoke(cli, ["mandates", "create", "default"]).exit_code == 0
    assert runner.invoke(cli, ["users", "create", "ann@acme.test"]).exit_code == 0
    for label, message in (("ci\u202ebot", "U+202E"), ("ci\x00", "U+0000")):
        refused = runner.invoke(cli, ["keys", "create", "ann@acme.test", "--name", label])
        assert refused.exit_code == 1 and message in refused.stderr, refused.output
        assert refused.stderr.count("\n") == 1 and refused.stdout == ""
    issued = runner.invoke(cli, ["keys", "create", "ann@acme.test", "--name", " Cafe\u0301 CI "])
    assert issued.exit_code == 0 and issued.stdout.startswith("agt_"), issued.output


def test_the_operator_sets_a_mandates_budget(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    for name, value in cli_env(tmp_path / "data").items():
        monkeypatch.setenv(name, value)
    monkeypatch.chdir(tmp_path)
    runner = CliRunner()
    assert runner.invoke(cli, ["mandates", "create", "acme"]).exit_code == 0
    shown = runner.invoke(cli, ["mandates", "budget", "acme"])
    assert shown.exit_code == 0, shown.output
    assert shown.stdout.strip() == (
        "balance_chf=none monthly_limit_chf=none spent_this_month_chf=0.00 allow_unpriced=false"
    )
    raised = runner.invoke(
        cli,
        ["mandates", "budget", "acme", "--balance", "100", "--top-up", "25.5",
         "--monthly-limit", "500", "--allow-unpriced"],
    )  # fmt: skip
    assert raised.exit_code == 0, raised.output
    assert raised.stdout.strip() == (
        "balance_chf=125.50 monthly_limit_chf=500.00 spent_this_month_chf=0.00 allow_unpriced=true"
    )
    removed = runner.invoke(cli, ["mandates", "budget", "acme", "--monthly-limit", "none"])
    assert "monthly_limit_chf=none" in removed.stdout, removed.output
    for args, message in (
        (["--balance", "lots"], "--balance takes an amount"),
        (["--top-up", "-5"], "amount_chf must be above 0"),
        (["--balance", "1e999"], "finite number"),
    ):
        refused = runner.invoke(cli, ["mandates", "budget", "acme", *args])
        assert refused.exit_code == 1 and message in refused.stderr, refused.output
        assert refused.stderr.count("\n") == 1
    unknown = runner.invoke(cli, ["mandates", "budget", "nope"])
    assert unknown.exit_code == 1 and "no mandate named 'nope'" in unknown.stderr
