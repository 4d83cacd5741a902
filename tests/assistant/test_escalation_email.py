"""E-mail escalation: delivered only when a real SMTP server accepted it; otherwise an honest
error and the desk's other options — never a message that claims delivery."""

from __future__ import annotations

from collections.abc import Iterator

import httpx
import pytest

from agentur.assistant.definition import HelpDesk
from agentur.assistant.phrases import PHRASES
from agentur.assistant.send_escalation_email import send_escalation_email
from agentur.assistant.settings import AssistantSettings
from tests.assistant.definitions import shop_definition
from tests.assistant.smtp_inbox import Inbox, free_port, running_inbox
from tests.conftest import Tenants

DESK = HelpDesk.model_validate(shop_definition()["help_desks"][0])
SENT_WORDS = [PHRASES["email_sent"][lang].split("{")[0].strip() for lang in PHRASES["email_sent"]]


@pytest.fixture
def smtp_server() -> Iterator[tuple[int, Inbox]]:
    with running_inbox() as server:
        yield server


def _claims_delivery(text: str) -> bool:
    return any(words in text for words in SENT_WORDS)


@pytest.mark.parametrize("language", ["en", "de", "fr"])
async def test_unconfigured_email_never_reports_success(language: str) -> None:
    result = await send_escalation_email(
        AssistantSettings(smtp_host=None), DESK, "visitor@example.test", "Call me", language
    )
    assert result.delivered is False
    assert result.message == PHRASES["email_unavailable"][language]
    assert not _claims_delivery(result.message)
    # the phone; not the chat, which names a bare queue rather than a live chat's web address
    assert {a["kind"] for a in result.alternatives} == {"phone"}


async def test_refused_connection_is_an_honest_failure() -> None:
    settings = AssistantSettings(smtp_host="127.0.0.1", smtp_port=free_port(), smtp_starttls=False)
    result = await send_escalation_email(settings, DESK, None, "Hello", "en")
    assert result.delivered is False and result.error
    assert not _claims_delivery(result.message)


async def test_configured_smtp_delivers_to_the_desk(smtp_server) -> None:  # type: ignore[no-untyped-def]
    port, inbox = smtp_server
    settings = AssistantSettings(smtp_host="127.0.0.1", smtp_port=port, smtp_starttls=False)
    result = await send_escalation_email(
        settings, DESK, "visitor@example.test", "My parcel is lost", "en"
    )
    assert result.delivered is True
    assert len(inbox.messages) == 1
    mail = inbox.messages[0]
    assert mail["To"] == "support@example.test"
    assert mail["Reply-To"] == "visitor@example.test"
    assert "My parcel is lost" in mail.get_payload()


async def test_escalation_endpoint_answers_503_when_unconfigured(
    client: httpx.AsyncClient, tenants: Tenants, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("AGENTUR_SMTP_HOST", raising=False)
    admin = await tenants.member()
    assistant_id = (
        await client.post("/v1/assistants", json=shop_definition(), headers=admin.headers)
    ).json()["id"]
    cid = (
        await client.post(f"/v1/assistants/{assistant_id}/conversations", headers=admin.headers)
    ).json()["id"]
    response = await client.post(
        f"/v1/assistants/{assistant_id}/conversations/{cid}/escalations",
        json={"help_desk": "support", "email": "v@example.test", "text": "Please call"},
        headers=admin.headers,
    )
    assert response.status_code == 503
    body = response.json()
    assert body["delivered"] is False and not _claims_delivery(body["message"])
    assert [a["kind"] for a in body["alternatives"]] == ["phone"]
