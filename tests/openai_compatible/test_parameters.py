"""Request parameters through `/openai/v1` with the official `openai` client: structured output
honoured by a wire server that has it and refused (400 naming the model) where the provider has
none, sampling parameters passed on or refused per the README table, unknown ones named, and
a prompt beyond the context window as `context_length_exceeded`."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator, Callable, Iterator

import openai
import pytest
from pydantic import BaseModel

from agentur.ai.model_spec import Capability, ModelSpec
from agentur.ai.providers.anthropic import AnthropicProvider
from agentur.ai.providers.openai_compatible import OpenAICompatibleProvider
from agentur.ai.providers.scripted import ScriptedProvider, ScriptedTurn
from agentur.ai.service import AiService
from agentur.ai.settings import AiSettings
from agentur.runtime import Runtime
from tests.ai.wire_servers import ReceivedRequest, Reply, WireServer, anthropic_text, openai_text
from tests.conftest import Member, Tenants

Client = Callable[[Member], openai.AsyncOpenAI]
WIRE = "openai_compatible:wire-model"
PLAIN = "openai_compatible:plain-model"
CLAUDE = "anthropic:wire-claude"
HI = [{"role": "user", "content": "Where is Bern?"}]
CHAT = frozenset({Capability.tools, Capability.streaming})


class City(BaseModel):
    name: str
    country: str


def wire_spec(name: str, *capabilities: Capability, provider: str = "openai_compatible"):
    return ModelSpec(
        provider=provider,
        name=name,
        capabilities=CHAT | set(capabilities),
        input_price_usd_per_mtok=1.0,
        output_price_usd_per_mtok=2.0,
    )


def json_when_asked(request: ReceivedRequest) -> Reply:
    """A server with a JSON mode: JSON when the request asks for it, prose otherwise."""
    if request.json.get("response_format", {}).get("type") in ("json_object", "json_schema"):
        return openai_text(json.dumps({"name": "Bern", "country": "Switzerland"}))
    return openai_text("Bern is the Swiss capital.")


@pytest.fixture
def servers() -> Iterator[tuple[WireServer, WireServer]]:
    with WireServer("openai", "/v1") as wire, WireServer("anthropic") as claude:
        yield wire, claude


@pytest.fixture
async def wire_models(
    runtime: Runtime, servers: tuple[WireServer, WireServer]
) -> AsyncIterator[tuple[WireServer, WireServer]]:
    """An OpenAI-compatible server with a structured-output model and one without, and an
    Anthropic server, behind the gateway."""
    wire, claude = servers
    providers = [
        OpenAICompatibleProvider(
            base_url=wire.base_url,
            models=[
                wire_spec("wire-model", Capability.structured_output),
                wire_spec("plain-model"),
            ],
        ),
        AnthropicProvider(
            api_key="sk-test",
            base_url=claude.base_url,
            models=[wire_spec("wire-claude", Capability.structured_output, provider="anthropic")],
        ),
    ]
    runtime.ai = AiService(providers, settings=AiSettings())
    yield wire, claude
    await runtime.ai.aclose()


async def test_structured_output_comes_back_as_json_from_a_server_that_has_it(
    tenants: Tenants, openai_client: Client, wire_models: tuple[WireServer, WireServer]
) -> None:
    wire, _ = wire_models
    wire.enqueue(json_when_asked, json_when_asked, json_when_asked)
    client = openai_client(await tenants.member())

    parsed = await client.chat.completions.parse(model=WIRE, messages=HI, response_format=City)
    as_object = await client.chat.completions.create(
        model=WIRE, messages=HI, response_format={"type": "json_object"}
    )
    prose = await client.chat.completions.create(model=WIRE, messages=HI)

    assert parsed.choices[0].message.parsed == City(name="Bern", country="Switzerland")
    sent_schema = wire.received[0].json["response_format"]
    assert sent_schema["type"] == "json_schema"
    assert sent_schema["json_schema"]["name"] == "City"
    assert sent_schema["json_schema"]["strict"] is True
    assert sent_schema["json_schema"]["schema"]["required"] == ["name", "country"]
    assert json.loads(as_object.choices[0].message.content) == {
        "name": "Bern",
        "country": "Switzerland",
    }
    assert wire.received[1].json["response_format"] == {"type": "json_object"}
    assert prose.choices[0].message.content == "Bern is the Swiss capital."


@pytest.mark.parametrize("model", [PLAIN, CLAUDE])
async def test_structured_output_is_refused_naming_the_model_where_it_cannot_be_kept(
    tenants: Tenants,
    openai_client: Client,
    wire_models: tuple[WireServer, WireServer],
    model: str,
) -> None:
    client = openai_client(await tenants.member())

    with pytest.raises(openai.BadRequestError) as refused:
        await client.chat.completions.parse(model=model, messages=HI, response_format=City)

    assert refused.value.body["param"] == "response_format"
    assert model in refused.value.message
    assert all(not server.received for server in wire_models)  # nothing was sent


async def test_sampling_parameters_are_passed_on_or_refused_per_provider(
    tenants: Tenants, openai_client: Client, wire_models: tuple[WireServer, WireServer]
) -> None:
    wire, claude = wire_models
    wire.enqueue(openai_text("Bern."))
    claude.enqueue(anthropic_text("Bern."))
    client = openai_client(await tenants.member())
    sampling = {"top_p": 0.5, "stop": ["\n\n", "END"]}

    await client.chat.completions.create(
        model=WIRE, messages=HI, seed=7, presence_penalty=0.5, frequency_penalty=-0.5, **sampling
    )
    await client.chat.completions.create(model=CLAUDE, messages=HI, **sampling)
    with pytest.raises(openai.BadRequestError) as no_seed:
        await client.chat.completions.create(model=CLAUDE, messages=HI, seed=7)

    sent = wire.last.json
    assert (sent["top_p"], sent["stop"], sent["seed"]) == (0.5, ["\n\n", "END"], 7)
    assert (sent["presence_penalty"], sent["frequency_penalty"]) == (0.5, -0.5)
    to_claude = claude.last.json
    assert (to_claude["top_p"], to_claude["stop_sequences"]) == (0.5, ["\n\n", "END"])
    assert no_seed.value.body["param"] == "seed" and CLAUDE in no_seed.value.message
    assert len(claude.received) == 1


async def test_unknown_and_unsupported_parameters_are_named_and_defaults_pass(
    runtime: Runtime, tenants: Tenants, openai_client: Client
) -> None:
    provider = ScriptedProvider([], fallback=ScriptedTurn(text="ok"))
    runtime.ai = AiService([provider], settings=AiSettings())
    client = openai_client(await tenants.member())
    model = "scripted:scripted-model"

    with pytest.raises(openai.BadRequestError) as unknown:
        await client.chat.completions.create(model=model, messages=HI, extra_body={"foo": 1})
    with pytest.raises(openai.BadRequestError) as logprobs:
        await client.chat.completions.create(model=model, messages=HI, logprobs=True)
    with pytest.raises(openai.BadRequestError) as agent_tools:
        await client.chat.completions.create(
            model="agentur-agent",
            messages=HI,
            tools=[{"type": "function", "function": {"name": "f", "parameters": {}}}],
        )
    accepted = await client.chat.completions.create(
        model=model, messages=HI, n=1, logprobs=False, user="end-user-7", temperature=0.2
    )

    assert unknown.value.message.endswith("Unrecognized request argument supplied: foo")
    assert unknown.value.body["param"] == "foo"
    assert logprobs.value.body["param"] == "logprobs"
    assert agent_tools.value.body["param"] == "tools"
    assert accepted.choices[0].message.content == "ok"
    assert provider.received[-1].options.temperature == 0.2


async def test_a_prompt_beyond_the_context_window_is_context_length_exceeded(
    runtime: Runtime, tenants: Tenants, openai_client: Client
) -> None:
    small = ModelSpec(
        provider="scripted",
        name="small-model",
        capabilities=CHAT,
        context_window=4_000,
        max_output_tokens=500,
        input_price_usd_per_mtok=1.0,
        output_price_usd_per_mtok=2.0,
    )
    provider = ScriptedProvider([], model_specs=[small])
    runtime.ai = AiService([provider], settings=AiSettings())
    client = openai_client(await tenants.member())
    long_prompt = [{"role": "user", "content": "word " * 20_000}]

    for stream in (False, True):
        with pytest.raises(openai.BadRequestError) as too_long:
            await client.chat.completions.create(
                model="scripted:small-model", messages=long_prompt, stream=stream
            )
        assert too_long.value.code == "context_length_exceeded"
        assert too_long.value.body["param"] == "messages"
        assert "4000 tokens" in too_long.value.message
    assert provider.received == []
