"""Pre-flight: off by default, shadow logs without acting, routing acts above thresholds,
and below them the visitor sees a fixed sentence that never names a flow."""

from __future__ import annotations

import pytest

from agentur.ai.providers.scripted import ScriptedTurn
from agentur.assistant.definition import AssistantDefinition
from agentur.assistant.phrases import PHRASES
from agentur.assistant.settings import AssistantSettings
from agentur.assistant.text_tokens import contains_phrase, words
from tests.assistant.definitions import RETURNS_ANSWER, shop_definition
from tests.assistant.turns import intent, preflight, scripted_ai, turn

SHADOW = AssistantSettings(PREFLIGHT_SHADOW=True)
ROUTING = AssistantSettings(PREFLIGHT_ROUTING=True)


async def test_off_by_default_makes_no_preflight_call(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("PREFLIGHT_SHADOW", raising=False)
    monkeypatch.delenv("PREFLIGHT_ROUTING", raising=False)
    ai, provider = scripted_ai(intent("faq", "returns"))
    result = await turn("How can I return this?", ai=ai, settings=AssistantSettings())
    assert len(provider.received) == 1 and result.decisions == []
    assert not any(step.startswith("preflight") for step in result.path)


async def test_environment_switches() -> None:
    assert SHADOW.preflight_mode == "shadow"
    assert ROUTING.preflight_mode == "routing"
    assert (
        AssistantSettings(PREFLIGHT_SHADOW=True, PREFLIGHT_ROUTING=True).preflight_mode == "routing"
    )


async def test_shadow_logs_the_decision_and_does_not_act() -> None:
    ai, provider = scripted_ai(
        preflight(flow="order_status", flow_c=0.95), intent("faq", "returns")
    )
    result = await turn("Where is my order?", ai=ai, settings=SHADOW)
    assert result.decisions == [("flow:order_status", "shadow", False)]
    assert "preflight:shadow:flow:order_status:not-acted" in result.path
    # The turn ran as without pre-flight: classification decided (here: the FAQ).
    assert result.final["answer"] == RETURNS_ANSWER
    assert len(provider.received) == 2
    assert PHRASES["preflight_low"]["en"] not in result.thinking


async def test_routing_runs_the_flow_directly_without_classification() -> None:
    ai, provider = scripted_ai(preflight(flow="order_status", flow_c=0.95))
    result = await turn("Where is my order?", ai=ai, settings=ROUTING)
    assert result.decisions == [("flow:order_status", "routing", True)]
    assert result.path[-1] == "flow:order_status:start"
    assert len(provider.received) == 1


async def test_routing_answers_the_faq_verbatim_with_the_faq_as_source() -> None:
    ai, _ = scripted_ai(preflight(faq="returns", faq_c=0.9))
    result = await turn("return?", ai=ai, settings=ROUTING)
    assert result.final["answer"] == RETURNS_ANSWER
    assert result.final["sources"][0]["faq_id"] == "returns"


async def test_routing_person_request_opens_the_recommended_desk() -> None:
    definition = shop_definition()
    definition["help_desks"].insert(
        0, {"id": "sales", "name": "Sales", "options": [{"kind": "phone", "address": "+41 1"}]}
    )
    ai, _ = scripted_ai(
        preflight(person=True, person_c=0.9, desk="support", flow="order_status", flow_c=0.9)
    )
    result = await turn(
        "human please",
        ai=ai,
        settings=ROUTING,
        definition=AssistantDefinition.model_validate(definition),
    )
    assert result.decisions == [("person:support", "routing", True)]
    assert result.final["actions"][0]["help_desk"]["id"] == "support"


async def test_routing_below_threshold_shows_the_fixed_sentence_and_classifies() -> None:
    ai, provider = scripted_ai(preflight(flow="order_status", flow_c=0.5), intent("faq", "returns"))
    result = await turn("Where is my order?", ai=ai, settings=ROUTING)
    assert result.decisions == [("none", "routing", False)]
    assert PHRASES["preflight_low"]["en"] in result.thinking
    assert result.final["answer"] == RETURNS_ANSWER
    assert len(provider.received) == 2


async def test_thresholds_are_per_question() -> None:
    definition = shop_definition(preflight_thresholds={"flow": 0.4})
    ai, _ = scripted_ai(preflight(flow="order_status", flow_c=0.5))
    result = await turn(
        "Where is my order?",
        ai=ai,
        settings=ROUTING,
        definition=AssistantDefinition.model_validate(definition),
    )
    assert result.path[-1] == "flow:order_status:start"


async def test_failed_preflight_runs_the_turn_as_without_it() -> None:
    ai, _ = scripted_ai(ScriptedTurn(text="not json"), intent("faq", "returns"))
    result = await turn("return?", ai=ai, settings=ROUTING)
    assert result.decisions == [("unavailable", "routing", False)]
    assert result.final["answer"] == RETURNS_ANSWER


async def test_no_provider_preflight_is_unavailable_and_the_router_decides() -> None:
    result = await turn("How can I return an item?", ai=None, settings=ROUTING)
    assert "preflight:routing:unavailable" in result.path
    assert result.final["answer"] == RETURNS_ANSWER


MESSAGES = {
    "en": "Could you tell me where my order is right now?",
    "de": "Können Sie mir bitte sagen, wo meine Bestellung gerade ist?",
    "fr": "Pouvez-vous me dire où se trouve ma commande en ce moment ?",
    "it": "Può dirmi dove si trova il mio ordine in questo momento?",
    "es": "¿Puede decirme dónde está mi pedido en este momento?",
}


@pytest.mark.parametrize("language", sorted(MESSAGES))
@pytest.mark.parametrize(
    "flow_name", ["Order status wizard", "help", "Frage", "aider", "aiutarla", "ayudarle"]
)
async def test_fixed_sentence_is_in_the_message_language_and_never_names_a_flow(
    language: str, flow_name: str
) -> None:
    # Flow names that are words of the usual sentence force the runtime to avoid them.
    definition = shop_definition(languages=["en", "de", "fr", "it", "es"])
    definition["flows"][0]["name"] = flow_name
    model = AssistantDefinition.model_validate(definition)
    ai, _ = scripted_ai(preflight(flow="order_status", flow_c=0.3), intent("faq", "returns"))
    result = await turn(MESSAGES[language], ai=ai, settings=ROUTING, definition=model)
    assert result.final["language"] == language
    shown = [
        e.data["text"]
        for e in result.events
        if e.type == "thinking" and e.data["stage"] == "preflight"
    ]
    assert shown in (
        [PHRASES["preflight_low"][language]],
        [PHRASES["preflight_low_alternate"][language]],
    )
    shown_words = words(shown[0])
    assert not contains_phrase(shown_words, flow_name)
    assert not contains_phrase(shown_words, "order_status")
