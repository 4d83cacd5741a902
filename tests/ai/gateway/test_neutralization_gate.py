"""G4 through the service: what the provider receives, what the caller gets back."""

from __future__ import annotations

import json

import pytest
from sqlalchemy import select

from agentur.ai.gateway_errors import NeutralizationBlockedError
from agentur.ai.messages import AiRequest, Message, ToolCall, ToolDefinition
from agentur.ai.operation_types import OperationType
from agentur.ai.providers.scripted import ScriptedProvider, ScriptedTurn
from agentur.storage.models.ai import NeutralizationMapping
from tests.ai.gateway.conftest import ask
from tests.ai.neutralization.pii_corpus import PII, corpus_text


def _sent_text(provider: ScriptedProvider) -> str:
    """Everything any request carried to the provider, as one string."""
    parts = []
    for request in provider.received:
        for message in request.messages:
            parts.append(message.content)
            parts.extend(json.dumps(c.arguments, ensure_ascii=False) for c in message.tool_calls)
    return "\n".join(parts)


async def test_no_pii_reaches_the_provider_and_answers_are_reidentified(
    gateway, tenants, configure_mandate
):
    member = await tenants.member()
    await configure_mandate(member.mandate_id, neutralization_policy="neutralize")
    provider = ScriptedProvider(
        [
            lambda r: ScriptedTurn(
                text="I will write to [EMAIL_1].",
                tool_calls=(ToolCall("c1", "send_mail", {"to": "[EMAIL_1]", "cc": ["[PHONE_1]"]}),),
            ),
            ScriptedTurn(text="Done: [EMAIL_1] and [IBAN_1]."),
        ]
    )
    ai = gateway(provider)
    system = "You help Hans (hans.muster@example.ch, +41 44 668 18 00)."
    request = AiRequest(
        operation=OperationType.agent,
        messages=(Message.system(system), Message.user(corpus_text())),
        tools=(ToolDefinition("send_mail", "send", {"type": "object"}),),
        workflow_id="wf-1",
    )
    first = await ai.call(request, member.context)
    assert first.text == "I will write to hans.muster@example.ch."
    assert first.tool_calls[0].arguments == {
        "to": "hans.muster@example.ch",
        "cc": ["+41 44 668 18 00"],
    }
    # Next round: the re-identified tool call and a tool result full of PII go back in.
    call = first.tool_calls[0]
    second_request = AiRequest(
        operation=OperationType.agent,
        messages=(
            *request.messages,
            Message.assistant(first.text, (call,)),
            Message.tool_result(
                call, "sent; bank CH93 0076 2011 6238 5295 7, AHV 756.1234.5678.97"
            ),
        ),
        tools=request.tools,
        workflow_id="wf-1",
    )
    second = await ai.call(second_request, member.context)
    assert second.text == "Done: hans.muster@example.ch and CH93 0076 2011 6238 5295 7."
    sent = _sent_text(provider)
    for value, _ in PII:
        assert value not in sent, value
    assert "[EMAIL_1]" in sent and "[AHV_1]" in sent


async def test_placeholders_are_stable_across_rounds_and_stored_encrypted(
    gateway, tenants, configure_mandate, runtime
):
    member = await tenants.member()
    await configure_mandate(member.mandate_id, neutralization_policy="neutralize")
    provider = ScriptedProvider()
    ai = gateway(provider)
    await ai.call(ask("mail a@x.ch and b@x.ch", workflow_id="wf-2"), member.context)
    # A fresh service (another worker) must reuse the stored map.
    other = gateway(provider)
    other.store.cipher = ai.store.cipher
    await other.call(ask("again b@x.ch, new c@x.ch", workflow_id="wf-2"), member.context)
    assert provider.received[0].messages[0].content == "mail [EMAIL_1] and [EMAIL_2]"
    assert provider.received[1].messages[0].content == "again [EMAIL_2], new [EMAIL_3]"
    async with runtime.database.session() as session:
        row = await session.scalar(select(NeutralizationMapping))
    assert row.workflow_id == "wf-2" and row.mandate_id == member.mandate_id
    assert b"a@x.ch" not in row.ciphertext and b"EMAIL" not in row.ciphertext


async def test_block_names_types_never_values(gateway, tenants, configure_mandate):
    member = await tenants.member()
    await configure_mandate(
        member.mandate_id, neutralization_policy="block", custom_terms=["Acme AG"]
    )
    provider = ScriptedProvider()
    ai = gateway(provider)
    with pytest.raises(NeutralizationBlockedError) as raised:
        await ai.call(ask("IBAN CH93 0076 2011 6238 5295 7 for Acme AG, a@x.ch"), member.context)
    detail = raised.value.detail
    assert "EMAIL" in detail and "IBAN" in detail and "TERM" in detail
    assert "CH93" not in detail and "Acme" not in detail and "a@x.ch" not in detail
    assert provider.received == []
    # Clean requests pass.
    assert (await ai.call(ask("what is 2+2?"), member.context)).text


async def test_require_neutralization_forces_neutralize_over_off(gateway, tenants):
    member = await tenants.member()
    provider = ScriptedProvider()
    ai = gateway(provider)  # mandate policy: default off
    await ai.call(ask("a@x.ch"), member.context)
    await ai.call(ask("a@x.ch"), member.context.with_changes(require_neutralization=True))
    assert provider.received[0].messages[0].content == "a@x.ch"
    assert provider.received[1].messages[0].content == "[EMAIL_1]"


async def test_streamed_answer_is_reidentified(gateway, tenants, configure_mandate):
    member = await tenants.member()
    await configure_mandate(member.mandate_id, neutralization_policy="neutralize")
    provider = ScriptedProvider([ScriptedTurn(text="Reply to [EMAIL_1] now")])
    ai = gateway(provider)
    events = [e async for e in ai.stream(ask("from a@x.ch", workflow_id="w"), member.context)]
    text = "".join(e.text for e in events if hasattr(e, "text") and not hasattr(e, "response"))
    assert text == "Reply to a@x.ch now"
    assert events[-1].response.text == "Reply to a@x.ch now"


async def test_neutralize_text_without_any_provider(gateway, tenants, configure_mandate):
    member = await tenants.member()
    await configure_mandate(member.mandate_id, custom_terms=["Muster Treuhand"])
    ai = gateway()
    assert ai.models() == []
    neutral = await ai.neutralize_text(
        "Muster Treuhand, a@x.ch", member.context, workflow_id="wf-k"
    )
    assert neutral == "[TERM_1], [EMAIL_1]"
    back = await ai.reidentify_text(neutral, member.context, workflow_id="wf-k")
    assert back == "Muster Treuhand, a@x.ch"
