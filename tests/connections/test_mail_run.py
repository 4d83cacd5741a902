"""The issue's mail run: an agent with a scripted model searches mail on a real IMAP server,
saves an attachment, reads it, and replies with that workspace file attached through a real
SMTP server — while the connection's password never reaches the model, the traces or any
stored row in plain text."""

from __future__ import annotations

import email
import email.policy
import json
import logging
from collections.abc import Iterator

import pytest
from sqlalchemy import select, text

from agentur.agent.config import AgentConfig
from agentur.agent.events import EventType
from agentur.agent.run_agent import run_agent
from agentur.ai.messages import AiRequest
from agentur.ai.providers.scripted import ScriptedTurn
from agentur.connections.kinds import Credentials
from agentur.connections.service import ConnectionService, credentials_box
from agentur.errors import NotFoundError
from agentur.runtime import Runtime
from agentur.storage.models import Base
from tests.agent.support import Recorder, call, deps, scripted
from tests.conftest import Member, Tenants
from tests.connections.mail_servers import (
    IMAP_PASSWORD,
    Outbox,
    imap_server,
    mail_settings,
    message,
    seed,
    smtp_server,
)
from tests.egress.allowed_hosts import allow


@pytest.fixture
def mail_servers(monkeypatch: pytest.MonkeyPatch) -> Iterator[tuple[int, int, Outbox]]:
    with imap_server() as imap_port, smtp_server() as (smtp_port, outbox):
        allow(monkeypatch, imap_port, smtp_port)
        seed(
            imap_port,
            message("bob@other.test", "Lunch", "Pizza at noon?"),
            message("jürg@other.test", "Grüße aus Zürich", "Bis bald"),
            message("anna@supplier.test", "Invoice 42", "Dear team, the invoice is attached.",
                    attachment=("invoice-42.txt", b"Invoice 42\nTotal: CHF 1250.00\n")),
        )  # fmt: skip
        yield imap_port, smtp_port, outbox


async def add_mail_connection(
    runtime: Runtime, member: Member, imap_port: int, smtp_port: int, **options: object
) -> str:
    async with runtime.database.session() as session:
        service = ConnectionService(
            session,
            member.context,
            credentials_box(runtime.settings),
            runtime.all_settings.connections,
        )
        connection = await service.create(
            "mail",
            "Office mail",
            mail_settings(imap_port, smtp_port),
            Credentials(password=IMAP_PASSWORD),
            **options,  # type: ignore[arg-type]
        )
        await service.commit()
        return connection.id


def last_result(request: AiRequest) -> dict:
    [*_, last] = (m for m in request.messages if m.tool_call_id)
    assert not last.is_error, last.content
    return json.loads(last.content)


def reply_step(request: AiRequest) -> ScriptedTurn:
    saved = last_result(request)
    return ScriptedTurn.calls(call("read_file", "f", file_id=saved["file_id"]))


async def test_search_save_read_and_reply_with_attachment(
    runtime: Runtime,
    tenants: Tenants,
    mail_servers: tuple[int, int, Outbox],
    caplog: pytest.LogCaptureFixture,
) -> None:
    caplog.set_level(logging.DEBUG)
    imap_port, smtp_port, outbox = mail_servers
    alice = await tenants.member("acme")
    await add_mail_connection(runtime, alice, imap_port, smtp_port)
    found: dict = {}
    saved: dict = {}

    def read_step(request: AiRequest) -> ScriptedTurn:
        found.update(last_result(request))
        [hit] = found["messages"]
        return ScriptedTurn.calls(call("read_mail", "r", uid=hit["uid"]))

    def save_step(request: AiRequest) -> ScriptedTurn:
        read = last_result(request)
        found["message_id"] = read["message_id"]
        return ScriptedTurn.calls(call("save_attachment", "a", uid=read["uid"], index=0))

    def send_step(request: AiRequest) -> ScriptedTurn:
        content = last_result(request)
        saved.update(file_id=content["file_id"], content=content["content"])
        return ScriptedTurn.calls(
            call("send_mail", "m", to=["anna@supplier.test"], subject="Re: Invoice 42",
                 body="Thanks, booked.", attachment_file_ids=[content["file_id"]],
                 in_reply_to=found["message_id"])
        )  # fmt: skip

    ai, provider = scripted(
        [
            ScriptedTurn.calls(call("search_mail", "s", **{"from": "anna", "subject": "invoice"})),
            read_step,
            save_step,
            reply_step,
            send_step,
            ScriptedTurn(text="Replied."),
        ]
    )
    recorder = Recorder()
    await run_agent("answer anna", AgentConfig(), alice.context, deps(ai, runtime=runtime),
                    emit=recorder)  # fmt: skip

    results = {e["id"]: e for e in recorder.of(EventType.tool_result)}
    assert not [r for r in results.values() if r["is_error"]]
    assert found["total"] == 1 and found["messages"][0]["subject"] == "Invoice 42"
    assert "Total: CHF 1250.00" in saved["content"]
    sent = json.loads(results["m"]["content"])
    assert sent["sent"] is True and "queued as T-1" in sent["smtp_reply"]

    [envelope] = outbox.envelopes
    assert envelope.rcpt_tos == ["anna@supplier.test"]  # type: ignore[attr-defined]
    received = email.message_from_bytes(envelope.content, policy=email.policy.default)  # type: ignore[attr-defined]
    assert received["In-Reply-To"] == found["message_id"]
    [attached] = list(received.iter_attachments())
    assert attached.get_filename() == "invoice-42.txt"
    assert attached.get_payload(decode=True) == b"Invoice 42\nTotal: CHF 1250.00\n"

    # The password never went to the model, and nothing stored holds it in plain text.
    assert IMAP_PASSWORD not in repr(provider.received)
    # Logs at DEBUG cover the SMTP login (the test server logs it, masked) and hold no password.
    assert IMAP_PASSWORD not in caplog.text and "AUTH PLAIN" in caplog.text
    async with runtime.database.session() as session:
        for table in Base.metadata.sorted_tables:
            rows = (await session.execute(select(table))).all()
            assert IMAP_PASSWORD not in repr(rows), table.name
        assert (await session.execute(text("select count(*) from connections"))).scalar() == 1


async def test_failing_smtp_is_an_honest_error_and_another_tenant_sees_nothing(
    runtime: Runtime,
    tenants: Tenants,
    mail_servers: tuple[int, int, Outbox],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    imap_port, smtp_port, outbox = mail_servers
    alice = await tenants.member("acme")
    mallory = await tenants.member("evil")
    closed_port = imap_port + 1 if imap_port + 1 != smtp_port else imap_port + 2
    allow(monkeypatch, closed_port)  # listed, so the failure is the server's, not the rule's
    connection_id = await add_mail_connection(runtime, alice, imap_port, closed_port)
    ai, _ = scripted(
        [
            ScriptedTurn.calls(
                call("list_mailboxes", "l"),
                call("search_mail", "u", subject="Grüße", since="2026-11-02"),
                call("search_mail", "e", before="2026-11-02"),
                call("send_mail", "m", to=["x@y.test"], subject="s", body="b"),
            ),
            ScriptedTurn(text="done"),
        ]
    )
    recorder = Recorder()
    await run_agent("send", AgentConfig(), alice.context, deps(ai, runtime=runtime), emit=recorder)
    outcome = {e["id"]: e for e in recorder.of(EventType.tool_result)}
    assert json.loads(outcome["l"]["content"])["mailboxes"] == ["INBOX"]
    [umlaut] = json.loads(outcome["u"]["content"])["messages"]
    assert umlaut["subject"] == "Grüße aus Zürich"
    assert json.loads(outcome["e"]["content"])["total"] == 0  # IMAP compares arrival dates: today
    failed = outcome["m"]
    assert failed["is_error"] and f"SMTP 127.0.0.1:{closed_port}" in failed["content"]
    assert '"sent"' not in failed["content"] and outbox.envelopes == []

    ai, _ = scripted([ScriptedTurn.calls(call("list_connections", "l")), ScriptedTurn(text="done")])
    recorder = Recorder()
    await run_agent("steal", AgentConfig(), mallory.context, deps(ai, runtime=runtime),
                    emit=recorder)  # fmt: skip
    [listed] = recorder.of(EventType.tool_result)
    assert json.loads(listed["content"]) == {"connections": []}
    async with runtime.database.session() as session:
        service = ConnectionService(
            session,
            mallory.context,
            credentials_box(runtime.settings),
            runtime.all_settings.connections,
        )
        with pytest.raises(NotFoundError, match=f"connection {connection_id} not found"):
            await service.get(connection_id)


async def test_a_neutralize_connection_shows_mail_with_placeholders(
    runtime: Runtime, tenants: Tenants, mail_servers: tuple[int, int, Outbox]
) -> None:
    imap_port, smtp_port, _ = mail_servers
    alice = await tenants.member("acme")
    await add_mail_connection(runtime, alice, imap_port, smtp_port, neutralize=True)

    def read_step(request: AiRequest) -> ScriptedTurn:
        [hit] = last_result(request)["messages"]
        return ScriptedTurn.calls(
            call("read_mail", "r", uid=hit["uid"]),
            call("save_attachment", "a", uid=hit["uid"]),
        )

    ai, provider = scripted(
        [ScriptedTurn.calls(call("search_mail", "s", subject="Invoice")), read_step,
         ScriptedTurn(text="done")]
    )  # fmt: skip
    recorder = Recorder()
    await run_agent("invoice?", AgentConfig(), alice.context, deps(ai, runtime=runtime),
                    emit=recorder)  # fmt: skip
    results = {e["id"]: e for e in recorder.of(EventType.tool_result)}
    assert not [r for r in results.values() if r["is_error"]]
    assert json.loads(results["a"]["content"])["neutralize"] is True
    seen = repr([request.messages for request in provider.received[1:]])
    assert "anna@supplier.test" not in seen
    assert "the invoice is attached" in seen  # the text itself is there
