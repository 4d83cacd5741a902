"""How an `agentur-agent` run ends, as the official `openai` client sees it: a completed run
is `stop`, one cut by its round limit is `length` with the text so far, a model outage is an
error the client raises (plain and streamed); and which requests keep a conversation."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import replace

import httpx
import openai
import pytest

from agentur.ai.gateway_store import MemoryGatewayStore
from agentur.ai.mandate_ai_settings import MandateAiConfig
from agentur.ai.messages import Role as MessageRole
from agentur.ai.model_spec import Capability, ModelSpec
from agentur.ai.operation_types import OperationType
from agentur.ai.providers.openai_compatible import OpenAICompatibleProvider
from agentur.ai.providers.scripted import ScriptedProvider, ScriptedTurn
from agentur.ai.service import AiService
from agentur.ai.settings import AiSettings
from agentur.runtime import Runtime
from tests.ai.wire_servers import WireServer, openai_error
from tests.conftest import Member, Tenants

Client = Callable[[Member], openai.AsyncOpenAI]
AGENT = "agentur-agent"
ASK = [{"role": "user", "content": "Tidy up my workspace."}]
STILL_LOOKING = ScriptedTurn(
    text="Still looking.", tool_calls=ScriptedTurn.call("list_files").tool_calls
)


def looping_agent(runtime: Runtime) -> ScriptedProvider:
    """A model that calls a tool every round, so only the round limit ends the run."""
    provider = ScriptedProvider([], fallback=STILL_LOOKING)
    runtime.ai = AiService([provider], settings=AiSettings())
    return provider


async def streamed_text(stream: openai.AsyncStream) -> tuple[str, list[str | None]]:
    chunks = [chunk async for chunk in stream]
    text = "".join(c.choices[0].delta.content or "" for c in chunks if c.choices)
    return text, [c.choices[0].finish_reason for c in chunks if c.choices]


async def test_a_round_limited_run_ends_with_length_and_its_partial_text(
    runtime: Runtime, tenants: Tenants, openai_client: Client
) -> None:
    provider = looping_agent(runtime)
    client = openai_client(await tenants.member())
    limit = {"max_rounds": "2"}

    answer = await client.chat.completions.create(model=AGENT, messages=ASK, metadata=limit)
    stream = await client.chat.completions.create(
        model=AGENT, messages=ASK, metadata=limit, stream=True
    )
    text, reasons = await streamed_text(stream)

    assert answer.choices[0].finish_reason == "length"
    assert answer.choices[0].message.content == "Still looking."
    assert reasons[-1] == "length" and text == "Still looking.Still looking."
    for shown in (answer.choices[0].message.content, text):
        assert "I stopped before finishing" not in shown
    assert len(provider.received) == 4  # two rounds per run: the limit held
    with pytest.raises(openai.BadRequestError) as bad:
        await client.chat.completions.create(
            model=AGENT, messages=ASK, metadata={"max_rounds": "many"}
        )
    assert bad.value.body["param"] == "metadata.max_rounds"


@pytest.fixture
def outage() -> Iterator[WireServer]:
    """A model server that answers every call with 503."""
    with WireServer("openai", "/v1") as server:
        server.default_reply = openai_error(503, "the model is overloaded", error_type="server")
        yield server


def use_wire_model(runtime: Runtime, server: WireServer) -> OpenAICompatibleProvider:
    spec = ModelSpec(
        provider="openai_compatible",
        name="wire-model",
        capabilities=frozenset({Capability.tools, Capability.streaming}),
        input_price_usd_per_mtok=1.0,
        output_price_usd_per_mtok=2.0,
    )
    provider = OpenAICompatibleProvider(base_url=server.base_url, models=[spec])
    runtime.ai = AiService([provider], settings=AiSettings(max_retries=0))
    return provider


async def test_a_model_outage_is_an_error_plain_and_streamed(
    runtime: Runtime, tenants: Tenants, openai_client: Client, outage: WireServer
) -> None:
    provider = use_wire_model(runtime, outage)
    client = openai_client(await tenants.member())
    try:
        with pytest.raises(openai.InternalServerError) as plain:
            await client.chat.completions.create(model=AGENT, messages=ASK)
        stream = await client.chat.completions.create(model=AGENT, messages=ASK, stream=True)
        received: list[str] = []
        with pytest.raises(openai.APIError) as streamed:
            async for chunk in stream:
                received.append(chunk.choices[0].delta.content or "")
    finally:
        await provider.aclose()

    assert plain.value.status_code == 502
    assert "overloaded" in plain.value.message and "503" in plain.value.message
    assert plain.value.type == "server_error"
    assert "overloaded" in streamed.value.message
    assert streamed.value.body["type"] == "server_error"
    assert "".join(received) == ""  # no failure text passed off as an answer
    assert len(outage.received) == 2  # one call per run: it failed, nothing was made up


async def test_the_mandates_exhausted_budget_is_a_quota_error(
    runtime: Runtime, tenants: Tenants, openai_client: Client
) -> None:
    member = await tenants.member()
    spec = ModelSpec(
        provider="scripted",
        name="dear-model",
        capabilities=frozenset({Capability.tools, Capability.streaming}),
        input_price_usd_per_mtok=1.0,
        output_price_usd_per_mtok=2.0,
    )
    store = MemoryGatewayStore(AiSettings())
    runtime.ai = AiService(
        [ScriptedProvider([], model_specs=[spec])], store=store, settings=AiSettings()
    )
    store.configs[member.mandate_id] = replace(
        MandateAiConfig.defaults(AiSettings()), balance_chf=0.0
    )

    with pytest.raises(openai.APIStatusError) as refused:
        await openai_client(member).chat.completions.create(model=AGENT, messages=ASK)

    assert refused.value.status_code == 402
    assert refused.value.code == "insufficient_quota"


async def test_requests_keep_no_conversation_unless_they_ask_and_can_continue_one(
    runtime: Runtime, tenants: Tenants, openai_client: Client, base_url: str
) -> None:
    provider = ScriptedProvider([], fallback=ScriptedTurn(text="Noted."))
    runtime.ai = AiService([provider], settings=AiSettings())
    member = await tenants.member()
    client = openai_client(member)
    history = [
        {"role": "user", "content": "My name is Ada."},
        {"role": "assistant", "content": "Hello Ada."},
        {"role": "user", "content": "Remember: blue."},
    ]
    root = base_url.removesuffix("/openai/v1")

    async with httpx.AsyncClient(base_url=root, headers=member.headers) as http:
        plain = await client.chat.completions.with_raw_response.create(
            model=AGENT, messages=history
        )
        assert (await http.get("/v1/workflows")).json() == []
        run = await http.get(f"/v1/agent/runs/{plain.headers['x-agent-run-id']}")
        assert run.status_code == 200 and run.json()["workflow_id"] is None  # traced all the same

        stored = await client.chat.completions.create(model=AGENT, messages=history, store=True)
        workflow_id = stored.metadata["workflow_id"]  # type: ignore[attr-defined]
        (listed,) = (await http.get("/v1/workflows")).json()
        assert listed["id"] == workflow_id and listed["title"] == "Remember: blue."

        follow_up = [{"role": "user", "content": "What colour?"}]
        continued = await client.chat.completions.with_raw_response.create(
            model=AGENT, messages=follow_up, metadata={"workflow_id": workflow_id}
        )
        assert continued.headers["x-agentur-workflow-id"] == workflow_id
        messages = (await http.get(f"/v1/workflows/{workflow_id}/messages")).json()["items"]

    assert [(m["role"], m["content"]) for m in messages] == [
        ("user", "My name is Ada."),
        ("assistant", "Hello Ada."),
        ("user", "Remember: blue."),
        ("assistant", "Noted."),
        ("user", "What colour?"),
        ("assistant", "Noted."),
    ]
    # The continued run saw the stored conversation though the request sent one message.
    run_calls = [r for r in provider.received if r.operation == OperationType.agent]
    seen = [(m.role, m.content) for m in run_calls[-1].messages]
    assert (MessageRole.user, "My name is Ada.") in seen
    assert (MessageRole.user, "Remember: blue.") in seen
    with pytest.raises(openai.NotFoundError) as unknown:
        await client.chat.completions.create(
            model=AGENT, messages=follow_up, metadata={"workflow_id": "no-such-workflow"}
        )
    assert unknown.value.body["param"] == "metadata.workflow_id"
    outsider = openai_client(await tenants.member("globex"))
    with pytest.raises(openai.NotFoundError):
        await outsider.chat.completions.create(
            model=AGENT, messages=follow_up, metadata={"workflow_id": workflow_id}
        )
