"""Every decision path of a turn, with the scripted provider and with no provider at all."""

from __future__ import annotations

from agentur.ai.messages import ToolCall
from agentur.ai.providers.scripted import ScriptedTurn
from agentur.ai.service import AiService
from agentur.ai.settings import AiSettings
from agentur.assistant.settings import AssistantSettings
from tests.assistant.definitions import RETURNS_ANSWER
from tests.assistant.turns import DOCUMENT, MemoryKnowledge, intent, scripted_ai, turn

NO_PROVIDER = AiService(
    [], settings=AiSettings()
)  # the gateway with nothing configured: NoModelError on every call


# --- with the scripted provider -------------------------------------------------------------


async def test_model_picks_faq_and_the_answer_is_verbatim() -> None:
    ai, provider = scripted_ai(intent("faq", "returns"))
    result = await turn("I'd like my money back for these shoes", ai=ai)
    assert result.final["answer"] == RETURNS_ANSWER
    assert result.final["sources"] == [
        {
            "kind": "faq",
            "faq_id": "returns",
            "question": "How can I return an item?",
            "language": "en",
        }
    ]
    assert result.path[1:] == ["classify:model", "faq:returns"]
    assert len(provider.received) == 1


async def test_model_picks_flow_and_the_flow_never_calls_a_model() -> None:
    ai, provider = scripted_ai(intent("flow", "order_status"))
    state: dict = {}
    first = await turn("where's my stuff", ai=ai, state=state)
    assert first.path[-1] == "flow:order_status:start"
    assert first.final["answer"] == "Let's find your order.\nWhat is your order number?"
    second = await turn("12345", ai=ai, state=state)
    third = await turn("2", ai=ai, state=state)  # "Phone" jumps to the handoff step
    assert second.path[-1] == third.path[-1] == "flow:order_status:continue"
    assert any(a["type"] == "escalation_menu" for a in third.final["actions"])
    assert "flow" not in state
    assert len(provider.received) == 1  # only the classification


async def test_model_picks_escalation() -> None:
    ai, _ = scripted_ai(intent("escalate", "support"))
    # With an SMTP server, e-mail is offered; the chat option names a bare queue, not a live
    # chat's web address, so it is not.
    settings = AssistantSettings(smtp_host="smtp.example.test")
    result = await turn("this is useless, get me someone", ai=ai, settings=settings)
    assert result.path[-1] == "escalation_menu"
    menu = result.final["actions"][0]
    assert menu["help_desk"]["name"] == "Customer support"
    open_now = {o["kind"]: o["open_now"] for o in menu["options"]}
    assert open_now == {"email": True, "phone": True}


async def test_basic_reply_is_one_call_without_tools() -> None:
    ai, provider = scripted_ai(intent("basic_reply"), ScriptedTurn(text="Hi! Happy to help."))
    result = await turn("hello there", ai=ai)
    assert result.final["answer"] == "Hi! Happy to help."
    assert result.path[-1] == "basic_reply"
    assert len(provider.received) == 2 and provider.received[1].tools == ()


async def test_search_knowledge_runs_a_bounded_tool_loop_with_citations() -> None:
    ai, provider = scripted_ai(
        intent("search_knowledge"),
        ScriptedTurn.call("search_knowledge", query="parcel delivery time"),
        ScriptedTurn.call("read_source_window", source_id="doc-1", offset=0, limit=40),
        ScriptedTurn(text="International parcels take five to eight working days [1]."),
    )
    knowledge = MemoryKnowledge()
    result = await turn("How long does a parcel to Germany take?", ai=ai, knowledge=knowledge)
    assert result.final["answer"] == "International parcels take five to eight working days [1]."
    assert result.path[-1] == "search_knowledge:generated"
    # Retrieved first (the passages are in the first prompt), then the model's follow-up.
    assert knowledge.queries == ["How long does a parcel to Germany take?", "parcel delivery time"]
    assert "[1] shipping.md › Delivery times › p. 2\nParcels within" in (
        provider.received[1].messages[1].content
    )
    citation = result.final["sources"][0]
    assert (citation["file"], citation["section"], citation["page"]) == (
        "shipping.md",
        "Delivery times",
        2,
    )
    tools = [e.data for e in result.events if e.type == "thinking" and "tool" in e.data]
    assert [(t["tool"], t["status"]) for t in tools] == [
        ("search_knowledge", "started"),  # the retrieval before the model
        ("search_knowledge", "started"),
        ("search_knowledge", "finished"),
        ("read_source_window", "started"),
        ("read_source_window", "finished"),
    ]
    # The tool result the model saw is the window with its total length.
    window = provider.received[3].messages[-1].content
    assert f'"total_length": {len(DOCUMENT)}' in window


async def test_knowledge_loop_stops_at_the_step_limit() -> None:
    search = ScriptedTurn.call("search_knowledge", query="parcel")
    ai, provider = scripted_ai(
        intent("search_knowledge"), search, search, ScriptedTurn(text="Two working days [1].")
    )
    settings = AssistantSettings(assistant_max_knowledge_steps=2)
    result = await turn("parcels?", ai=ai, settings=settings)
    assert result.final["answer"] == "Two working days [1]."
    assert [len(r.tools) > 0 for r in provider.received[1:]] == [True, True, False]


async def test_invalid_tool_arguments_go_back_to_the_model() -> None:
    ai, provider = scripted_ai(
        intent("search_knowledge"),
        ScriptedTurn.calls(
            ToolCall("c1", "read_source_window", {"source_id": "doc-1", "limit": -5})
        ),
        ScriptedTurn(text="Sorry."),
    )
    await turn("parcels?", ai=ai)
    tool_message = provider.received[2].messages[-1]
    assert tool_message.is_error and "limit" in tool_message.content


async def test_failed_classification_falls_back_to_the_router() -> None:
    ai, _ = scripted_ai(ScriptedTurn(text="I think it is the FAQ about returns"))
    result = await turn("How can I return an item?", ai=ai)
    assert result.final["answer"] == RETURNS_ANSWER
    assert result.path[1].startswith("classify:router")


async def test_classification_naming_an_unknown_faq_falls_back() -> None:
    ai, _ = scripted_ai(intent("faq", "does-not-exist"))
    result = await turn("Where is my order?", ai=ai)
    assert result.path[-1] == "flow:order_status:start"


# --- with no provider at all ----------------------------------------------------------------


async def test_no_provider_faq_from_variant_and_keyword() -> None:
    english = await turn("Can I send something back?", ai=NO_PROVIDER)
    assert english.final["answer"] == RETURNS_ANSWER
    assert english.path[-1] == "faq:returns"
    # The FAQ has no German text: the English one, said to be English, in German.
    german = await turn("Wie kann ich das zurücksenden?", ai=NO_PROVIDER)
    assert german.final["answer"] == f"Diese Antwort gibt es nur auf Englisch:\n\n{RETURNS_ANSWER}"
    assert german.path[-1] == "faq:returns"


async def test_no_provider_flow_and_validation() -> None:
    state: dict = {}
    await turn("I want to track my parcel", ai=NO_PROVIDER, state=state)
    invalid = await turn("12", ai=NO_PROVIDER, state=state)
    assert invalid.final["answer"].startswith("Order numbers have five digits.")
    assert state["flow"]["step"] == 1


async def test_no_provider_escalation_in_german() -> None:
    result = await turn("Ich möchte mit einem Menschen sprechen", ai=NO_PROVIDER)
    assert result.path[-1] == "escalation_menu"
    assert result.final["language"] == "de"
    assert result.final["answer"].startswith("So erreichen Sie Customer support:")


async def test_no_provider_greeting_uses_a_fixed_reply() -> None:
    result = await turn("Hello!", ai=NO_PROVIDER)
    assert result.path[-1] == "basic_reply"
    assert result.final["answer"] == "Hello! How can I help you?"


async def test_no_provider_knowledge_is_extractive_and_labelled() -> None:
    result = await turn("How long does parcel delivery take?", ai=NO_PROVIDER)
    assert result.path[-1] == "search_knowledge:extractive"
    assert result.final["answer"].startswith("Excerpts from our documents")
    assert result.final["sources"][0]["file"] == "shipping.md"


async def test_no_provider_and_nothing_found_offers_a_person() -> None:
    result = await turn("Do you sell garden furniture?", ai=None)
    assert result.path[-1] == "search_knowledge:extractive"
    assert result.final["actions"] == [{"type": "offer_escalation"}]
    assert result.final["sources"] == []


async def test_simplified_thinking_through_the_gateway_when_enabled() -> None:
    ai, provider = scripted_ai(
        intent("search_knowledge"),
        ScriptedTurn.call("search_knowledge", query="parcel delivery"),
        ScriptedTurn(text="Looking through our shipping guides…"),  # the rewrite
        ScriptedTurn(text="Two working days [1]."),
    )
    settings = AssistantSettings(assistant_simplify_thinking_with_model=True)
    result = await turn("parcels?", ai=ai, settings=settings)
    assert "Looking through our shipping guides…" in result.thinking
    assert not any("parcel delivery" in text for text in result.thinking)  # raw args stay inside
    assert "search_knowledge" in provider.received[2].messages[-1].content
    assert result.final["answer"] == "Two working days [1]."
