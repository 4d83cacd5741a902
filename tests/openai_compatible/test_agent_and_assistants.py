"""The official `openai` client against `agentur-agent` (a full agent run whose tools act
inside agentur) and `assistant:<id>` (a visitor turn), plain and streamed."""

from __future__ import annotations

from collections.abc import Callable

import httpx
import openai
import pytest
from fastapi import FastAPI

from agentur.ai.messages import Role as MessageRole
from agentur.ai.providers.scripted import ScriptedProvider, ScriptedTurn
from agentur.ai.service import AiService
from agentur.ai.settings import AiSettings
from agentur.context import Role
from agentur.runtime import Runtime
from tests.assistant.definitions import shop_definition
from tests.assistant.turns import intent
from tests.conftest import Member, Tenants

Client = Callable[[Member], openai.AsyncOpenAI]


def use_script(runtime: Runtime, *turns: ScriptedTurn) -> ScriptedProvider:
    provider = ScriptedProvider(list(turns), fallback=None)
    runtime.ai = AiService([provider], settings=AiSettings())
    return provider


def agent_script(runtime: Runtime) -> ScriptedProvider:
    """One round that lists the workspace (a tool inside agentur), then the answer."""
    return use_script(
        runtime,
        ScriptedTurn(text="Looking.", tool_calls=ScriptedTurn.call("list_files").tool_calls),
        ScriptedTurn(text="Your workspace is empty."),
    )


async def test_agent_run_answers_with_its_final_text_only(
    runtime: Runtime, tenants: Tenants, openai_client: Client
) -> None:
    provider = agent_script(runtime)
    client = openai_client(await tenants.member())

    answer = await client.chat.completions.create(
        model="agentur-agent",
        messages=[
            {"role": "user", "content": "My name is Ada."},
            {"role": "assistant", "content": "Hello Ada."},
            {"role": "user", "content": "What is in my workspace?"},
        ],
    )

    assert answer.choices[0].message.content == "Your workspace is empty."
    assert answer.choices[0].message.tool_calls is None
    assert answer.choices[0].finish_reason == "stop"
    assert answer.usage.prompt_tokens > 0 and answer.usage.completion_tokens > 0
    first_round = provider.received[0].messages
    assert any(m.role is MessageRole.user and m.content == "My name is Ada." for m in first_round)
    assert any(m.role is MessageRole.assistant and m.content == "Hello Ada." for m in first_round)
    assert any(m.role is MessageRole.tool for m in provider.received[1].messages)


async def test_agent_run_streams_text_but_no_tool_events(
    runtime: Runtime, tenants: Tenants, openai_client: Client
) -> None:
    agent_script(runtime)
    client = openai_client(await tenants.member())

    stream = await client.chat.completions.create(
        model="agentur-agent",
        messages=[{"role": "user", "content": "What is in my workspace?"}],
        stream=True,
        stream_options={"include_usage": True},
    )
    chunks = [chunk async for chunk in stream]

    text = "".join(c.choices[0].delta.content or "" for c in chunks if c.choices)
    assert text.endswith("Your workspace is empty.")
    assert "list_files" not in text
    assert all(not c.choices or c.choices[0].delta.tool_calls is None for c in chunks)
    assert [c.choices[0].finish_reason for c in chunks if c.choices][-1] == "stop"
    assert chunks[-1].usage.total_tokens > 0


async def _assistant(app: FastAPI, admin: Member) -> str:
    transport = httpx.ASGITransport(app=app)
    async with httpx.AsyncClient(transport=transport, base_url="http://agentur.test") as http:
        created = await http.post("/v1/assistants", json=shop_definition(), headers=admin.headers)
    assert created.status_code == 201, created.text
    return created.json()["id"]


@pytest.mark.parametrize("streamed", [False, True])
async def test_assistant_turn_answers_as_a_model(
    runtime: Runtime, app: FastAPI, tenants: Tenants, openai_client: Client, streamed: bool
) -> None:
    use_script(runtime, intent("basic_reply"), ScriptedTurn(text="Hi there, how can I help?"))
    admin = await tenants.member(role=Role.admin)
    assistant_id = await _assistant(app, admin)
    client = openai_client(admin)
    outsider = openai_client(await tenants.member("globex", Role.admin))

    ids = [model.id async for model in client.models.list()]
    assert f"assistant:{assistant_id}" in ids
    assert f"assistant:{assistant_id}" not in [m.id async for m in outsider.models.list()]
    messages = [{"role": "user", "content": "Hello!"}]
    model = f"assistant:{assistant_id}"
    if streamed:
        stream = await client.chat.completions.create(model=model, messages=messages, stream=True)
        chunks = [chunk async for chunk in stream]
        text = "".join(c.choices[0].delta.content or "" for c in chunks if c.choices)
        assert chunks[-1].choices[0].finish_reason == "stop"
    else:
        answer = await client.chat.completions.create(model=model, messages=messages)
        text = answer.choices[0].message.content
        assert answer.model == model
    assert text == "Hi there, how can I help?"

    with pytest.raises(openai.NotFoundError) as hidden:
        await outsider.chat.completions.create(model=model, messages=messages)
    assert hidden.value.code == "model_not_found"
