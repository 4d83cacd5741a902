"""The official `openai` client against a gateway model at /openai/v1: plain and streamed
answers, function calling end to end, usage and finish reasons, the model list, errors."""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from dataclasses import replace

import httpx
import openai
import pytest

from agentur.ai.gateway_store import MemoryGatewayStore
from agentur.ai.mandate_ai_settings import MandateAiConfig
from agentur.ai.messages import Role, ToolCall
from agentur.ai.model_spec import Capability, ModelSpec
from agentur.ai.providers.openai_compatible import OpenAICompatibleProvider
from agentur.ai.providers.scripted import ScriptedProvider, ScriptedTurn
from agentur.ai.service import AiService
from agentur.ai.settings import AiSettings
from agentur.runtime import Runtime
from tests.ai.wire_servers import WireServer, openai_stream
from tests.conftest import Member, Tenants

Client = Callable[[Member], openai.AsyncOpenAI]
MODEL = "scripted:scripted-model"
WEATHER = {
    "type": "function",
    "function": {
        "name": "get_weather",
        "description": "The weather in a city.",
        "parameters": {
            "type": "object",
            "properties": {"city": {"type": "string"}},
            "required": ["city"],
        },
    },
}


def use_script(runtime: Runtime, *turns: ScriptedTurn) -> ScriptedProvider:
    provider = ScriptedProvider(list(turns), fallback=None)
    runtime.ai = AiService([provider], settings=AiSettings())
    return provider


async def test_function_calling_round_trip_without_streaming(
    runtime: Runtime, tenants: Tenants, openai_client: Client
) -> None:
    provider = use_script(
        runtime,
        ScriptedTurn.call("get_weather", "call_w1", city="Bern"),
        ScriptedTurn(text="Sunny in Bern."),
    )
    client = openai_client(await tenants.member())
    messages: list = [
        {"role": "system", "content": "Be brief."},
        {"role": "user", "content": "Weather in Bern?"},
    ]

    first = await client.chat.completions.create(model=MODEL, messages=messages, tools=[WEATHER])

    choice = first.choices[0]
    assert choice.finish_reason == "tool_calls"
    assert first.model == MODEL and first.object == "chat.completion"
    call = choice.message.tool_calls[0]
    assert (call.id, call.function.name) == ("call_w1", "get_weather")
    assert json.loads(call.function.arguments) == {"city": "Bern"}
    assert first.usage.total_tokens == first.usage.prompt_tokens + first.usage.completion_tokens
    assert first.usage.prompt_tokens > 0
    sent = provider.received[0]
    assert [t.name for t in sent.tools] == ["get_weather"]
    assert sent.tools[0].parameters["required"] == ["city"]

    messages += [
        choice.message.model_dump(exclude_none=True),
        {"role": "tool", "tool_call_id": "call_w1", "content": "22 degrees, sunny"},
    ]
    second = await client.chat.completions.create(model=MODEL, messages=messages, tools=[WEATHER])

    assert second.choices[0].message.content == "Sunny in Bern."
    assert second.choices[0].finish_reason == "stop"
    history = provider.received[1].messages
    assert [m.role for m in history] == [Role.system, Role.user, Role.assistant, Role.tool]
    assert history[2].tool_calls == (ToolCall("call_w1", "get_weather", {"city": "Bern"}),)
    assert (history[3].tool_name, history[3].content) == ("get_weather", "22 degrees, sunny")


async def test_streams_text_tool_call_deltas_and_final_usage(
    runtime: Runtime, tenants: Tenants, openai_client: Client
) -> None:
    use_script(
        runtime,
        ScriptedTurn(text="Let me check the weather."),
        ScriptedTurn.call("get_weather", "call_s1", city="Chur"),
    )
    client = openai_client(await tenants.member())

    text_stream = await client.chat.completions.create(
        model=MODEL,
        messages=[{"role": "user", "content": "Hi"}],
        stream=True,
        stream_options={"include_usage": True},
    )
    chunks = [chunk async for chunk in text_stream]

    text = "".join(c.choices[0].delta.content or "" for c in chunks if c.choices)
    assert text == "Let me check the weather."
    assert len([c for c in chunks if c.choices and c.choices[0].delta.content]) > 1
    reasons = [c.choices[0].finish_reason for c in chunks if c.choices]
    assert reasons[-1] == "stop" and set(reasons[:-1]) == {None}
    assert chunks[-1].choices == [] and chunks[-1].usage.completion_tokens > 0
    assert len({c.id for c in chunks}) == 1

    tool_stream = await client.chat.completions.create(
        model=MODEL,
        messages=[{"role": "user", "content": "Weather in Chur?"}],
        tools=[WEATHER],
        stream=True,
    )
    chunks = [chunk async for chunk in tool_stream]

    deltas = [tc for c in chunks if c.choices for tc in c.choices[0].delta.tool_calls or []]
    assert deltas[0].id == "call_s1" and deltas[0].function.name == "get_weather"
    arguments = "".join(d.function.arguments or "" for d in deltas)
    assert json.loads(arguments) == {"city": "Chur"}
    assert chunks[-1].choices[0].finish_reason == "tool_calls"
    assert all(c.usage is None for c in chunks)  # no include_usage: no usage chunk


async def test_lists_the_models_the_caller_may_use(
    runtime: Runtime, tenants: Tenants, openai_client: Client
) -> None:
    use_script(runtime)
    client = openai_client(await tenants.member())

    ids = [model.id async for model in client.models.list()]

    assert MODEL in ids and "agentur-agent" in ids
    assert "scripted:scripted-embedding" in ids  # for /embeddings, as OpenAI lists them
    model = await client.models.retrieve(MODEL)
    assert (model.id, model.owned_by, model.object) == (MODEL, "scripted", "model")
    assert (await client.models.retrieve("agentur-agent")).owned_by == "agentur"
    with pytest.raises(openai.NotFoundError) as missing:
        await client.models.retrieve("nobody:nothing")
    assert missing.value.code == "model_not_found"


async def test_errors_come_in_openai_shape(
    runtime: Runtime, tenants: Tenants, openai_client: Client, base_url: str
) -> None:
    use_script(runtime, ScriptedTurn(text="never sent"))
    client = openai_client(await tenants.member())

    with pytest.raises(openai.NotFoundError) as missing:
        await client.chat.completions.create(
            model="nobody:nothing", messages=[{"role": "user", "content": "Hi"}]
        )
    assert missing.value.code == "model_not_found"
    assert missing.value.body["param"] == "model"
    assert "nobody:nothing" in missing.value.body["message"]

    # The client refuses to send no key at all, so the bare request goes without one.
    async with httpx.AsyncClient() as bare:
        anonymous = await bare.get(f"{base_url}/models")
    assert anonymous.status_code == 401
    assert anonymous.json()["error"]["type"] == "invalid_request_error"
    assert anonymous.json()["error"]["code"] == "invalid_api_key"

    wrong = openai.AsyncOpenAI(api_key="ak_not-a-key", base_url=base_url, max_retries=0)
    with pytest.raises(openai.AuthenticationError):
        await wrong.chat.completions.create(
            model=MODEL, messages=[{"role": "user", "content": "Hi"}]
        )

    with pytest.raises(openai.BadRequestError) as invalid:
        await client.chat.completions.create(model=MODEL, messages=[])
    assert invalid.value.body["param"] == "messages"


@pytest.fixture
def wire_server() -> Iterator[WireServer]:
    with WireServer("openai", "/v1") as server:
        yield server


async def test_proxies_to_an_openai_compatible_wire_server(
    runtime: Runtime, tenants: Tenants, openai_client: Client, wire_server: WireServer
) -> None:
    spec = ModelSpec(
        provider="openai_compatible",
        name="wire-model",
        capabilities=frozenset({Capability.tools, Capability.streaming}),
        input_price_usd_per_mtok=1.0,
        output_price_usd_per_mtok=2.0,
    )
    provider = OpenAICompatibleProvider(base_url=wire_server.base_url, models=[spec])
    runtime.ai = AiService([provider], settings=AiSettings())
    wire_server.enqueue(
        openai_stream(
            tool_calls=[ToolCall("call_x", "get_weather", {"city": "Genf"})], input_tokens=40
        )
    )
    client = openai_client(await tenants.member())
    try:
        stream = await client.chat.completions.create(
            model="openai_compatible:wire-model",
            messages=[{"role": "user", "content": "Weather in Genf?"}],
            tools=[WEATHER],
            stream=True,
            stream_options={"include_usage": True},
        )
        chunks = [chunk async for chunk in stream]
    finally:
        await provider.aclose()

    deltas = [tc for c in chunks if c.choices for tc in c.choices[0].delta.tool_calls or []]
    assert deltas[0].function.name == "get_weather"
    assert json.loads("".join(d.function.arguments or "" for d in deltas)) == {"city": "Genf"}
    assert [c.choices[0].finish_reason for c in chunks if c.choices][-1] == "tool_calls"
    assert chunks[-1].usage.prompt_tokens == 40
    sent = wire_server.last.json
    assert sent["tools"][0]["function"]["name"] == "get_weather"
    assert sent["messages"][-1] == {"role": "user", "content": "Weather in Genf?"}


async def test_only_models_the_mandate_allows_are_listed_and_usable_and_calls_are_billed(
    runtime: Runtime, tenants: Tenants, openai_client: Client
) -> None:
    specs = [
        ModelSpec(
            provider="scripted",
            name=name,
            capabilities=frozenset({Capability.tools, Capability.streaming}),
            input_price_usd_per_mtok=1.0,
            output_price_usd_per_mtok=2.0,
        )
        for name in ("allowed-model", "other-model")
    ]
    provider = ScriptedProvider([ScriptedTurn(text="ok")], model_specs=specs, fallback=None)
    store = MemoryGatewayStore(AiSettings())
    runtime.ai = AiService([provider], store=store, settings=AiSettings())
    member = await tenants.member()
    store.configs[member.mandate_id] = replace(
        MandateAiConfig.defaults(AiSettings()),
        allowed_models=frozenset({"scripted:allowed-model"}),
    )
    client = openai_client(member)

    ids = [model.id async for model in client.models.list()]
    assert "scripted:allowed-model" in ids and "scripted:other-model" not in ids
    with pytest.raises(openai.NotFoundError):
        await client.chat.completions.create(
            model="scripted:other-model", messages=[{"role": "user", "content": "Hi"}]
        )
    answer = await client.chat.completions.create(
        model="scripted:allowed-model", messages=[{"role": "user", "content": "Hi"}]
    )

    assert answer.choices[0].message.content == "ok"
    ((_, record),) = store.ledger
    assert record.model == "scripted:allowed-model" and record.mandate_id == member.mandate_id


async def test_a_stream_that_breaks_after_text_ends_in_an_error_the_client_raises(
    runtime: Runtime, tenants: Tenants, openai_client: Client, wire_server: WireServer
) -> None:
    spec = ModelSpec(
        provider="openai_compatible",
        name="wire-model",
        capabilities=frozenset({Capability.streaming}),
        input_price_usd_per_mtok=1.0,
        output_price_usd_per_mtok=2.0,
    )
    provider = OpenAICompatibleProvider(base_url=wire_server.base_url, models=[spec])
    runtime.ai = AiService([provider], settings=AiSettings())
    wire_server.enqueue(openai_stream("Hel", "lo", " world").broken_after(2))
    client = openai_client(await tenants.member())
    received: list[str] = []
    try:
        stream = await client.chat.completions.create(
            model="openai_compatible:wire-model",
            messages=[{"role": "user", "content": "Hi"}],
            stream=True,
        )
        with pytest.raises(openai.APIError, match="broke after text was sent"):
            async for chunk in stream:
                received.append(chunk.choices[0].delta.content or "")
    finally:
        await provider.aclose()

    assert "".join(received) == "Hel"  # what arrived before the cut, nothing made up


async def test_tool_choice_decides_which_tools_the_model_is_offered(
    runtime: Runtime, tenants: Tenants, openai_client: Client
) -> None:
    provider = use_script(runtime, ScriptedTurn(text="a"), ScriptedTurn(text="b"))
    client = openai_client(await tenants.member())
    clock = {"type": "function", "function": {"name": "get_time", "parameters": {}}}
    messages = [{"role": "user", "content": "Hi"}]

    await client.chat.completions.create(
        model=MODEL, messages=messages, tools=[WEATHER, clock], tool_choice="none"
    )
    await client.chat.completions.create(
        model=MODEL,
        messages=messages,
        tools=[WEATHER, clock],
        tool_choice={"type": "function", "function": {"name": "get_time"}},
    )
    with pytest.raises(openai.BadRequestError) as unknown:
        await client.chat.completions.create(
            model=MODEL,
            messages=messages,
            tools=[WEATHER],
            tool_choice={"type": "function", "function": {"name": "get_time"}},
        )

    assert [len(r.tools) for r in provider.received] == [0, 1]
    assert provider.received[1].tools[0].name == "get_time"
    assert unknown.value.body["param"] == "tool_choice"
