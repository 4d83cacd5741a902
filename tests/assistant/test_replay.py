"""Replay: decisions are stored, compared with the previous replay and the labels; a
changed decision exits non-zero and raises an alert (log always, webhook when configured)."""

from __future__ import annotations

import json
import logging
from datetime import UTC, datetime
from pathlib import Path

import pytest
from sqlalchemy import select
from typer.testing import CliRunner

from agentur.assistant.assistant_service import AssistantService
from agentur.assistant.credentials_box import CredentialsBox
from agentur.assistant.definition import AssistantDefinition
from agentur.assistant.nightly_replay import next_run, replay_all
from agentur.assistant.replay import Label, run_replay
from agentur.assistant.settings import AssistantSettings
from agentur.cli import assistant_commands
from agentur.cli.main import app
from agentur.egress.settings import allowed_hosts
from agentur.runtime import Runtime
from agentur.storage.models.assistant import Assistant, AssistantDecision
from tests.assistant.definitions import shop_definition
from tests.assistant.http_server import recording_server
from tests.assistant.turns import preflight, scripted_ai
from tests.conftest import Tenants

LABELS = [
    Label(text="How do I return shoes?", expected="faq:returns"),
    Label(text="Where is my order?", expected="flow:order_status"),
]


async def _assistant(runtime: Runtime, tenants: Tenants) -> str:
    member = await tenants.member()
    async with runtime.database.transaction() as session:
        box = CredentialsBox.from_settings(None, runtime.settings.data_dir)
        egress = AssistantSettings().api_limits(allowed_hosts()).egress
        service = AssistantService(session, member.context, box, egress)
        row = await service.create(AssistantDefinition.model_validate(shop_definition()))
        return row.id


async def _replay(runtime: Runtime, assistant_id: str, *turns, settings=None):  # type: ignore[no-untyped-def]
    ai, _ = scripted_ai(*turns)
    async with runtime.database.transaction() as session:
        row = await session.get(Assistant, assistant_id)
        return await run_replay(session, ai, row, LABELS, settings or AssistantSettings())


async def test_replay_detects_a_changed_decision_and_alerts(
    runtime: Runtime, tenants: Tenants, caplog: pytest.LogCaptureFixture
) -> None:
    assistant_id = await _assistant(runtime, tenants)
    first = await _replay(
        runtime,
        assistant_id,
        preflight(faq="returns", faq_c=0.9),
        preflight(flow="order_status", flow_c=0.9),
    )
    assert [r.decision for r in first.rows] == ["faq:returns", "flow:order_status"]
    assert first.changed == 0 and first.mismatched == 0 and first.alert is None

    with recording_server() as (base, hooks), caplog.at_level(logging.WARNING):
        settings = AssistantSettings(assistant_alert_webhook_url=f"{base}/hook")
        # The flow's confidence dropped below its threshold: the decision changed.
        second = await _replay(
            runtime,
            assistant_id,
            preflight(faq="returns", faq_c=0.9),
            preflight(flow="order_status", flow_c=0.5),
            settings=settings,
        )
    assert second.changed == 1 and second.mismatched == 1
    assert second.rows[1].previous == "flow:order_status" and second.rows[1].decision == "none"
    assert "CHANGED" in second.table()
    assert second.alert == {"log": "sent", "webhook": "sent"}
    hook = json.loads(hooks.requests[0]["body"])
    assert hook["changed"] == [
        {"text": "Where is my order?", "before": "flow:order_status", "after": "none"}
    ]
    assert any("Pre-flight decisions changed" in record.message for record in caplog.records)
    async with runtime.database.session() as session:
        logged = (
            await session.execute(
                select(AssistantDecision).where(AssistantDecision.mode == "replay")
            )
        ).scalars()
        assert sorted(d.decision for d in logged) == [
            "faq:returns",
            "faq:returns",
            "flow:order_status",
            "none",
        ]


async def test_cli_replay_exit_codes(
    runtime: Runtime, tenants: Tenants, tmp_path: Path, monkeypatch
) -> None:  # type: ignore[no-untyped-def]
    assistant_id = await _assistant(runtime, tenants)
    labels = tmp_path / "labels.jsonl"
    labels.write_text("\n".join(label.model_dump_json() for label in LABELS) + "\n")
    monkeypatch.setenv("AGENTUR_DATA_DIR", str(runtime.settings.data_dir))
    monkeypatch.setenv("AGENTUR_DATABASE_URL", runtime.settings.database_url or "")
    scripts = [
        [preflight(faq="returns", faq_c=0.9), preflight(flow="order_status", flow_c=0.9)],
        [preflight(faq="returns", faq_c=0.9), preflight(flow="order_status", flow_c=0.9)],
        [preflight(faq="returns", faq_c=0.2), preflight(flow="order_status", flow_c=0.9)],
    ]
    monkeypatch.setattr(
        assistant_commands, "ai_for", lambda runtime: scripted_ai(*scripts.pop(0))[0]
    )
    runner = CliRunner()
    command = ["assistants", "replay", "Shop helper", "--labels", str(labels)]
    first = await _in_thread(runner, command)
    assert first.exit_code == 0, first.output
    assert "2 messages, 0 changed" in first.output
    same = await _in_thread(runner, command)
    assert same.exit_code == 0
    changed = await _in_thread(runner, command)
    assert changed.exit_code == assistant_commands.EXIT_CHANGED
    assert "CHANGED" in changed.output
    async with runtime.database.session() as session:
        assert (await session.get(Assistant, assistant_id)).labels[0]["expected"] == "faq:returns"


async def _in_thread(runner: CliRunner, command: list[str]):  # type: ignore[no-untyped-def]
    import asyncio

    # The CLI runs its own event loop; keep it off the test's loop.
    return await asyncio.to_thread(runner.invoke, app, command)


async def test_nightly_replays_every_labelled_assistant(runtime: Runtime, tenants: Tenants) -> None:
    labelled = await _assistant(runtime, tenants)
    await _assistant(runtime, tenants)  # no label set: skipped
    async with runtime.database.transaction() as session:
        (await session.get(Assistant, labelled)).labels = [label.model_dump() for label in LABELS]
    ai, provider = scripted_ai(
        preflight(faq="returns", faq_c=0.9), preflight(flow="order_status", flow_c=0.9)
    )
    reports = await replay_all(runtime, ai, AssistantSettings())
    assert [r.assistant_id for r in reports] == [labelled]
    assert len(provider.received) == 2


def test_next_run_is_in_the_configured_zone() -> None:
    now = datetime(2026, 3, 28, 23, 0, tzinfo=UTC)  # 00:00 on the 29th in Zurich (CET)
    due = next_run(now, "02:30", "Europe/Zurich")
    # The night DST starts: 02:30 does not exist, zoneinfo folds it to 03:30 CEST = 01:30 UTC.
    assert due.date().isoformat() == "2026-03-29"
    assert (
        next_run(datetime(2026, 6, 1, 0, 0, tzinfo=UTC), "02:30", "Europe/Zurich")
        .astimezone(UTC)
        .hour
        == 0
    )
    assert next_run(datetime(2026, 6, 1, 1, 0, tzinfo=UTC), "02:30", "Europe/Zurich").day == 2
