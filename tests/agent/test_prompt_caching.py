"""Cache-friendly prompts, on the bytes wire-format servers received: a stable prefix
(system prompt, tool definitions, the turns so far) byte-identical across rounds and runs, the
changing context (clock, knowledge) in one last message, Anthropic's `cache_control`
breakpoints on the system prompt and the end of the stable part."""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import pytest
from pydantic import BaseModel

from agentur.agent.config import AgentConfig
from agentur.agent.dependencies import AgentDependencies
from agentur.agent.run_agent import run_agent
from agentur.ai.messages import ToolCall
from agentur.ai.providers.anthropic import AnthropicProvider
from agentur.ai.providers.openai_compatible import OpenAICompatibleProvider
from agentur.ai.service import AiService
from agentur.ai.settings import AiSettings
from agentur.context import RequestContext, Role
from agentur.tools.tool import Tool, ToolContext
from tests.agent.support import chat_model, deps
from tests.ai.wire_servers import WireServer, anthropic_stream, openai_stream

CONTEXT = RequestContext("u", "m", Role.member, timezone="Europe/Zurich")


class Page(BaseModel):
    page: int


async def read_page(args: Page, context: ToolContext) -> str:
    return f"page {args.page}: " + "lorem ipsum " * 20


@pytest.fixture
def openai_server() -> Iterator[WireServer]:
    with WireServer("openai", "/v1") as server:
        yield server


@pytest.fixture
def anthropic_server() -> Iterator[WireServer]:
    with WireServer("anthropic") as server:
        yield server


PAGE_TOOL = Tool("read_page", "Read one page.", Page, read_page, read_only=True)


def _rag_changing_every_round() -> Any:
    rounds = iter(range(1, 100))

    async def rag(prompt: str, context: RequestContext, *, workflow_id: str | None) -> str:
        return f"retrieved passage number {next(rounds)}"

    return rag


def _agent_deps(provider: Any) -> AgentDependencies:
    run_deps = deps(AiService([provider], settings=AiSettings()), [PAGE_TOOL])
    run_deps.rag = _rag_changing_every_round()
    return run_deps


def _compact(value: Any) -> bytes:
    # How httpx encodes a JSON body: the bytes the server received.
    return json.dumps(value, ensure_ascii=False, separators=(",", ":")).encode()


def _before_last_message(raw: bytes, body: dict[str, Any]) -> bytes:
    """The request's bytes up to its last message (the round's changing context)."""
    return raw[: raw.index(_compact(body["messages"][-1]))]


async def test_stable_prefix_is_byte_identical_across_rounds_and_runs(
    openai_server: WireServer,
) -> None:
    model = chat_model(provider="openai_compatible", name="qwen2.5")
    script = [
        openai_stream(tool_calls=[ToolCall("c1", "read_page", {"page": 1})]),
        openai_stream(tool_calls=[ToolCall("c2", "read_page", {"page": 2})]),
        openai_stream("Both pages say lorem ipsum."),
    ]
    for _ in range(2):  # two runs of the same configuration
        openai_server.enqueue(*script)
        provider = OpenAICompatibleProvider(base_url=openai_server.base_url, models=[model])
        result = await run_agent(
            "Read pages 1 and 2.", AgentConfig(), CONTEXT, _agent_deps(provider)
        )
        await provider.aclose()
        assert result.status.value == "completed", result.final_text

    requests = openai_server.received
    assert len(requests) == 6
    bodies = [request.json for request in requests]
    for number, body in enumerate(bodies):
        last = body["messages"][-1]
        assert last["role"] == "user" and "[Context for this round" in last["content"]
        assert f"retrieved passage number {number % 3 + 1}" in last["content"]
        assert "Europe/Zurich" in last["content"]
        system = body["messages"][0]
        assert system["role"] == "system"
        assert "retrieved passage" not in system["content"] and "Zurich" not in system["content"]
    # Round 1: the context is its own turn after the user's words, never joined into them.
    assert bodies[0]["messages"][1] == {"role": "user", "content": "Read pages 1 and 2."}
    assert bodies[0]["messages"][2]["content"].startswith("[Context for this round")
    assert bodies[1]["messages"][1] == {"role": "user", "content": "Read pages 1 and 2."}
    # Within a run, each round's request up to its context message is the start of the next.
    for run in (requests[:3], requests[3:]):
        for earlier, later in zip(run, run[1:], strict=False):
            assert later.body.startswith(_before_last_message(earlier.body, earlier.json))
    # Across runs: system prompt and tool definitions byte for byte the same.
    assert _compact(bodies[0]["messages"][0]) == _compact(bodies[3]["messages"][0])
    assert _compact(bodies[0]["tools"]) == _compact(bodies[3]["tools"])
    # The tools are not described again in prose.
    assert "Read one page." not in bodies[0]["messages"][0]["content"]


def _breakpoints(value: Any, path: str = "") -> list[str]:
    """Where `cache_control` sits in a request body, as paths."""
    found: list[str] = []
    if isinstance(value, dict):
        if "cache_control" in value:
            found.append(path)
        for key, item in value.items():
            found += _breakpoints(item, f"{path}.{key}")
    elif isinstance(value, list):
        for index, item in enumerate(value):
            found += _breakpoints(item, f"{path}[{index}]")
    return found


async def test_anthropic_requests_carry_cache_breakpoints_before_the_changing_context(
    anthropic_server: WireServer,
) -> None:
    model = chat_model(provider="anthropic", name="claude-haiku-4-5")
    anthropic_server.enqueue(
        anthropic_stream(tool_calls=[ToolCall("toolu_1", "read_page", {"page": 1})]),
        anthropic_stream("Page one says lorem ipsum."),
    )
    provider = AnthropicProvider(api_key="k", base_url=anthropic_server.base_url, models=[model])
    result = await run_agent("Read page 1.", AgentConfig(), CONTEXT, _agent_deps(provider))
    await provider.aclose()
    assert result.status.value == "completed", result.final_text

    second = anthropic_server.received[1].json
    # The prompt, the call and its result merge into turns: user, assistant, user. The last
    # user turn ends with the round's context; the breakpoint sits on the block before it.
    last_turn = second["messages"][-1]["content"]
    assert last_turn[-1]["type"] == "text" and "[Context for this round" in last_turn[-1]["text"]
    assert last_turn[-2]["type"] == "tool_result"
    assert sorted(_breakpoints(second)) == [
        f".messages[{len(second['messages']) - 1}].content[{len(last_turn) - 2}]",
        ".system[0]",
    ]
    # Round 1: the breakpoint ends right after the user's prompt.
    first = anthropic_server.received[0].json
    assert sorted(_breakpoints(first)) == [".messages[0].content[0]", ".system[0]"]
    assert first["messages"][0]["content"][0]["text"] == "Read page 1."
