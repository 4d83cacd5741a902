"""The turn's language: lingua's margin decides, short ambiguous messages keep the language the
conversation already has."""

from __future__ import annotations

from agentur.ai.service import AiService
from agentur.ai.settings import AiSettings
from tests.assistant.turns import turn

NO_PROVIDER = AiService([], settings=AiSettings())


async def test_an_english_person_request_in_a_german_conversation_gets_english() -> None:
    state = {"language": "de"}
    result = await turn("I want to talk to a person.", ai=NO_PROVIDER, state=state)
    assert result.final["language"] == "en" and state["language"] == "en"
    assert result.path[-1] == "escalation_menu"
    assert result.final["answer"].startswith("You can reach Customer support")


async def test_a_short_ambiguous_reply_keeps_the_conversation_language() -> None:
    state = {"language": "de"}
    result = await turn("ok", ai=NO_PROVIDER, state=state)
    assert result.final["language"] == "de"
    state = {"language": "en"}
    result = await turn("Hallo", ai=NO_PROVIDER, state=state)
    assert result.final["language"] == "en"
