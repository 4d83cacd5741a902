"""Done-when of the gateway issue, over real HTTP: only AGENTUR_OPENAI_COMPATIBLE_BASE_URL is
set, pointing at a local OpenAI-compatible wire server. The models are discovered and listed,
and every call is neutralized (asserted on the bytes the server received), billed, retried and
falls back."""

from __future__ import annotations

import json

import pytest
from sqlalchemy import select

from agentur.ai.database_gateway_store import DatabaseGatewayStore
from agentur.ai.messages import AiRequest, Message, StreamDone, ToolCall, ToolDefinition
from agentur.ai.neutralization.mapping_cipher import MappingCipher
from agentur.ai.operation_types import OperationType
from agentur.ai.provider_factory import build_providers
from agentur.ai.providers.openai_compatible_settings import OpenAICompatibleServerSettings
from agentur.ai.service import AiService
from agentur.ai.settings import AiSettings
from agentur.storage.models.ai import AiLedgerEntry
from tests.ai.gateway.conftest import Sleeps
from tests.ai.neutralization.pii_corpus import PII, corpus_text
from tests.ai.wire_servers.openai_replies import (
    openai_error,
    openai_stream,
    openai_text,
    openai_tool_call,
)
from tests.ai.wire_servers.server import Reply

MODELS = Reply.json({"object": "list", "data": [{"id": "llama3.2"}, {"id": "qwen2.5"}]})


@pytest.fixture
async def local_gateway(openai_server, runtime, configure_mandate, tenants):
    openai_server.enqueue(MODELS)
    server = OpenAICompatibleServerSettings(openai_compatible_base_url=openai_server.base_url)
    settings = AiSettings(
        default_model="openai_compatible:llama3.2",
        retry_base_delay_seconds=0.01,
    )
    sleeps = Sleeps()
    ai = AiService(
        build_providers(settings, server=server),
        settings=settings,
        store=DatabaseGatewayStore(runtime.database, settings, MappingCipher.generated()),
        sleep=sleeps,
    )
    await runtime.ai.aclose()
    runtime.ai = ai
    member = await tenants.member()
    await configure_mandate(member.mandate_id, neutralization_policy="neutralize")
    yield ai, openai_server, member, sleeps
    await ai.aclose()


def _received_text(server) -> str:
    return "\n".join(r.body.decode() for r in server.received if r.method == "POST")


async def test_models_are_discovered_and_listed(local_gateway, client):
    _, _, member, _ = local_gateway
    body = (await client.get("/v1/models", headers=member.headers)).json()
    chat = [m for m in body["items"] if m["provider"] != "local"]  # local: offline embedder
    assert [m["id"] for m in chat] == ["openai_compatible:llama3.2", "openai_compatible:qwen2.5"]
    assert chat[0]["input_price_usd_per_mtok"] == 0.0  # a local server: price 0


async def test_call_is_neutralized_billed_and_reidentified(local_gateway, runtime):
    ai, server, member, _ = local_gateway
    server.enqueue(
        openai_tool_call("send_mail", {"to": "[EMAIL_1]"}, input_tokens=321, output_tokens=12)
    )
    request = AiRequest(
        operation=OperationType.agent,
        messages=(Message.system("Assist hans.muster@example.ch"), Message.user(corpus_text())),
        tools=(ToolDefinition("send_mail", "send", {"type": "object"}),),
        workflow_id="wf-http",
    )
    response = await ai.call(request, member.context)
    assert response.tool_calls[0].arguments == {"to": "hans.muster@example.ch"}
    sent = _received_text(server)
    for value, _ in PII:
        for form in (value, json.dumps(value)[1:-1]):
            assert form not in sent, value
    assert "[EMAIL_1]" in sent and "[IBAN_1]" in sent
    async with runtime.database.session() as session:
        [row] = list(await session.scalars(select(AiLedgerEntry)))
    assert (row.model, row.input_tokens, row.output_tokens) == (
        "openai_compatible:llama3.2",
        321,
        12,
    )
    assert row.cost_chf == 0.0 and row.workflow_id == "wf-http"


async def test_retries_then_falls_back_over_http(local_gateway):
    ai, server, member, sleeps = local_gateway
    server.enqueue(
        openai_error(429, "slow down", retry_after=0.5),
        openai_error(503, "overloaded"),
        openai_error(500, "boom"),
        openai_text("from the fallback"),
    )
    response = await ai.call(AiRequest(OperationType.agent, (Message.user("hi"),)), member.context)
    assert response.text == "from the fallback"
    posts = [r for r in server.received if r.method == "POST"]
    assert [p.json["model"] for p in posts] == ["llama3.2"] * 3 + ["qwen2.5"]
    assert sleeps[0] == 0.5  # Retry-After honoured


async def test_400_is_not_retried_over_http(local_gateway):
    ai, server, member, sleeps = local_gateway
    server.enqueue(openai_error(400, "bad request"), openai_text("second model"))
    response = await ai.call(AiRequest(OperationType.agent, (Message.user("hi"),)), member.context)
    posts = [r for r in server.received if r.method == "POST"]
    assert [p.json["model"] for p in posts] == ["llama3.2", "qwen2.5"]
    assert sleeps == [] and response.text == "second model"


async def test_stream_is_neutralized_and_reidentified(local_gateway):
    ai, server, member, _ = local_gateway
    server.enqueue(
        openai_stream(
            "Writing to [EM",
            "AIL_1] now",
            tool_calls=(ToolCall("c1", "send_mail", {"to": "[EMAIL_1]", "iban": "[IBAN_1]"}),),
        )
    )
    request = AiRequest(
        OperationType.agent,
        (Message.user("mail a@x.ch about CH93 0076 2011 6238 5295 7"),),
        tools=(ToolDefinition("send_mail", "send", {"type": "object"}),),
        workflow_id="wf-s",
    )
    events = [e async for e in ai.stream(request, member.context)]
    text = "".join(getattr(e, "text", "") for e in events if not isinstance(e, StreamDone))
    arguments = "".join(getattr(e, "arguments_delta", "") for e in events)
    assert text == "Writing to a@x.ch now"
    assert json.loads(arguments) == {"to": "a@x.ch", "iban": "CH93 0076 2011 6238 5295 7"}
    final = events[-1].response
    assert final.tool_calls[0].arguments["iban"] == "CH93 0076 2011 6238 5295 7"
    assert "a@x.ch" not in _received_text(server)
