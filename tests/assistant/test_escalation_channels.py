"""The escalation menu offers only channels that work: e-mail with an SMTP server configured,
a chat only as the web address of a live chat (agentur has none of its own), a phone always;
a desk left with nothing usable says so instead of showing an empty menu."""

from __future__ import annotations

from typing import Any

from agentur.assistant.definition import AssistantDefinition
from agentur.assistant.phrases import PHRASES
from agentur.assistant.settings import AssistantSettings
from tests.assistant.definitions import shop_definition
from tests.assistant.turns import turn

SMTP = AssistantSettings(smtp_host="smtp.example.test")
LIVE_CHAT = "https://chat.example.test/support"


def _menu(result: Any) -> dict[str, Any]:
    return next(a for a in result.final["actions"] if a["type"] == "escalation_menu")


def _desk(*options: dict[str, Any]) -> AssistantDefinition:
    data = shop_definition()
    data["help_desks"][0]["options"] = list(options)
    return AssistantDefinition.model_validate(data)


async def test_email_only_with_smtp() -> None:
    without = await turn("I want to talk to a person", ai=None)
    assert [o["kind"] for o in _menu(without)["options"]] == ["phone"]
    assert "E-mail" not in without.final["answer"]
    with_smtp = await turn("I want to talk to a person", ai=None, settings=SMTP)
    assert [o["kind"] for o in _menu(with_smtp)["options"]] == ["email", "phone"]
    assert _menu(with_smtp)["options"][0]["contact"] is None  # the address stays server-side


async def test_a_chat_needs_the_web_address_of_a_live_chat() -> None:
    definition = _desk(
        {"kind": "chat", "label": "Queue", "address": "queue-1"},
        {"kind": "chat", "label": "Live chat", "address": LIVE_CHAT},
    )
    result = await turn("I want to talk to a person", ai=None, definition=definition)
    options = _menu(result)["options"]
    assert [(o["label"], o["contact"], o["index"]) for o in options] == [
        ("Live chat", LIVE_CHAT, 1)
    ]
    assert "queue-1" not in result.final["answer"]


async def test_a_desk_without_a_usable_channel_says_so() -> None:
    definition = _desk(
        {"kind": "email", "address": "support@example.test"},
        {"kind": "chat", "address": "queue-1"},
    )
    result = await turn("Ich möchte mit einem Menschen sprechen", ai=None, definition=definition)
    assert result.final["answer"] == PHRASES["no_help_desk"]["de"]
    assert _menu(result) == {"type": "escalation_menu", "help_desk": None, "options": []}


async def test_a_flow_handoff_offers_the_same_channels() -> None:
    state: dict[str, Any] = {}
    for message in ("Where is my order?", "12345", "Phone"):
        result = await turn(message, ai=None, state=state)
    assert [o["kind"] for o in _menu(result)["options"]] == ["phone"]
