"""`agentur connections …` in-process against real mail servers: the password comes from the
environment, is never printed, and a failing test exits non-zero with the reason."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from agentur.cli.main import app as cli
from tests.cli.cli_helpers import cli_env
from tests.connections.mail_servers import IMAP_PASSWORD, imap_server, mail_settings, smtp_server
from tests.egress.allowed_hosts import allow


def test_add_list_test_delete(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    for name, value in cli_env(tmp_path / "data").items():
        monkeypatch.setenv(name, value)
    monkeypatch.setenv("MAIL_PASSWORD", IMAP_PASSWORD)
    runner = CliRunner()
    assert runner.invoke(cli, ["mandates", "create", "acme"]).exit_code == 0
    made = runner.invoke(cli, ["users", "create", "ann@acme.test", "--mandate", "acme"])
    assert made.exit_code == 0, made.output
    with imap_server() as imap_port, smtp_server() as (smtp_port, _):
        allow(monkeypatch, imap_port, smtp_port)
        settings = {**mail_settings(imap_port, smtp_port), "from_address": "ann@acme.test"}
        user = ["--user", "ann@acme.test"]
        added = runner.invoke(cli, ["connections", "add", "--kind", "mail", "--name", "Office",
                                    "--settings", json.dumps(settings),
                                    "--password-env", "MAIL_PASSWORD", *user])  # fmt: skip
        assert added.exit_code == 0, added.output
        connection_id = added.stdout.split()[0]
        tested = runner.invoke(cli, ["connections", "test", connection_id, *user])
        assert tested.exit_code == 0 and " ok " in tested.stdout, tested.output

        listed = runner.invoke(cli, ["connections", "list", *user])
        assert connection_id in listed.stdout and "Office" in listed.stdout
        assert IMAP_PASSWORD not in added.output + tested.output + listed.output

    down = runner.invoke(cli, ["connections", "test", connection_id, *user])
    assert down.exit_code == 1 and "failed" in down.stdout and f"{imap_port}" in down.stdout

    bad_args = ["--kind", "mail", "--name", "x", "--settings", "{nope", "--password-env", "X"]
    bad = runner.invoke(cli, ["connections", "add", *bad_args, *user])
    assert bad.exit_code == 1 and "--settings is not JSON" in bad.output
    deleted = runner.invoke(cli, ["connections", "delete", connection_id, *user])
    assert deleted.exit_code == 0
    gone = runner.invoke(cli, ["connections", "test", connection_id, *user])
    assert gone.exit_code == 1 and f"connection {connection_id} not found" in gone.output
