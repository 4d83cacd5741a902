"""Agent loop overhead: ours vs pydantic-ai's Agent vs the OpenAI Agents SDK, then load.

Workload per run: 20 rounds x 3 read-only tool calls, then an answer (21 model turns), with a
zero-latency fake model in each framework, so what is measured is the loop itself. Ours runs
in memory and with trace persistence (SQLite in a temp folder). Then 500 concurrent runs with
100 ms simulated model latency: throughput and p99 added latency.

Run: `pip install -e '.[bench]' && python bench/agent_loop.py`. Prints figures; no asserts.
"""

from __future__ import annotations

import asyncio
import logging
import statistics
import tempfile
import time
from collections.abc import AsyncIterator, Awaitable, Callable
from pathlib import Path

from pydantic import BaseModel

from agentur.accounts import directory
from agentur.agent.config import AgentConfig
from agentur.agent.dependencies import AgentDependencies
from agentur.agent.run_agent import run_agent
from agentur.agent.settings import AgentSettings
from agentur.ai.messages import AiRequest, StreamEvent, ToolCall
from agentur.ai.model_spec import ModelSpec
from agentur.ai.providers.scripted import ScriptedProvider, ScriptedTurn
from agentur.ai.service import AiService
from agentur.ai.settings import AiSettings
from agentur.config import Settings
from agentur.context import RequestContext, Role
from agentur.runtime import Runtime
from agentur.tools.registry import ToolRegistry
from agentur.tools.tool import Tool, ToolContext
from agentur.tools.toolboxes import ToolboxEnvironment

ROUNDS = 20
TOOLS_PER_ROUND = 3
TURNS = ROUNDS + 1
REPEATS = 15
LOAD_RUNS = 500
LOAD_LATENCY = 0.1
LOAD_ROUNDS = 2  # tool rounds per load run, plus the answer: 3 model calls = 300 ms ideal


class Lookup(BaseModel):
    key: str


async def lookup(args: Lookup, _: ToolContext) -> dict[str, str]:
    return {"key": args.key, "value": args.key.upper()}


LOOKUP = Tool("lookup", "Look up a key.", Lookup, lookup, read_only=True)


class RoundsModel(ScriptedProvider):
    """The scripted model, answering from the request itself so one instance serves any
    number of concurrent runs: tool calls until `rounds` tool turns are done, then text."""

    def __init__(self, rounds: int, latency: float = 0.0) -> None:
        super().__init__()
        self.rounds = rounds
        self.latency = latency

    def _next_turn(self, request: AiRequest) -> ScriptedTurn:
        done = sum(1 for m in request.messages if m.tool_calls)
        if done >= self.rounds:
            return ScriptedTurn(text="all looked up")
        return ScriptedTurn.calls(
            *(
                ToolCall(f"c{done}_{i}", "lookup", {"key": f"k{done}{i}"})
                for i in range(TOOLS_PER_ROUND)
            )
        )

    async def stream(self, model: ModelSpec, request: AiRequest) -> AsyncIterator[StreamEvent]:
        if self.latency:
            await asyncio.sleep(self.latency)
        async for event in super().stream(model, request):
            yield event


def our_deps(provider: ScriptedProvider, runtime: Runtime | None) -> AgentDependencies:
    return AgentDependencies(
        ai=AiService([provider], settings=AiSettings()),
        runtime=runtime,
        settings=AgentSettings(),
        registry=ToolRegistry([LOOKUP]),
        toolbox_environment=ToolboxEnvironment(),
    )


async def timed(work: Callable[[], Awaitable[object]], repeats: int = REPEATS) -> float:
    """Median seconds of one run."""
    await work()  # warm-up (imports, caches)
    samples = []
    for _ in range(repeats):
        started = time.perf_counter()
        await work()
        samples.append(time.perf_counter() - started)
    return statistics.median(samples)


async def ours(context: RequestContext, runtime: Runtime | None) -> float:
    deps = our_deps(RoundsModel(ROUNDS), runtime)  # built once, as a server does

    async def one() -> None:
        result = await run_agent("look everything up", AgentConfig(max_rounds=30), context, deps)
        assert result.rounds == TURNS, result

    return await timed(one)


async def pydantic_ai_agent() -> float:
    from pydantic_ai import Agent
    from pydantic_ai.messages import ModelMessage, ModelResponse, TextPart, ToolCallPart
    from pydantic_ai.models.function import AgentInfo, FunctionModel

    def model(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        done = sum(isinstance(m, ModelResponse) for m in messages)
        if done >= ROUNDS:
            return ModelResponse(parts=[TextPart("all looked up")])
        return ModelResponse(
            parts=[
                ToolCallPart("lookup", {"key": f"k{done}{i}"}, tool_call_id=f"c{done}_{i}")
                for i in range(TOOLS_PER_ROUND)
            ]
        )

    agent = Agent(FunctionModel(model))

    @agent.tool_plain
    async def lookup(key: str) -> dict[str, str]:
        """Look up a key."""
        return {"key": key, "value": key.upper()}

    async def one() -> None:
        await agent.run("look everything up")

    return await timed(one)


async def openai_agents_sdk() -> float:
    from agents import Agent, ModelResponse, RunConfig, Runner, Usage, function_tool
    from agents.models.interface import Model
    from openai.types.responses import (
        ResponseFunctionToolCall,
        ResponseOutputMessage,
        ResponseOutputText,
    )

    class FakeModel(Model):
        async def get_response(self, system_instructions, input, *args, **kwargs):  # type: ignore[no-untyped-def]
            done = (
                sum(
                    1
                    for item in input
                    if isinstance(item, dict) and item.get("type") == "function_call"
                )
                // TOOLS_PER_ROUND
            )
            if done >= ROUNDS:
                output = [
                    ResponseOutputMessage(
                        id="m", role="assistant", status="completed", type="message",
                        content=[
                            ResponseOutputText(
                                text="all looked up", type="output_text", annotations=[]
                            )
                        ],
                    )
                ]  # fmt: skip
            else:
                output = [
                    ResponseFunctionToolCall(
                        call_id=f"c{done}_{i}", name="lookup", type="function_call",
                        arguments=f'{{"key": "k{done}{i}"}}',
                    )
                    for i in range(TOOLS_PER_ROUND)
                ]  # fmt: skip
            return ModelResponse(output=output, usage=Usage(), response_id=None)

        def stream_response(self, *args, **kwargs):  # type: ignore[no-untyped-def]
            raise NotImplementedError

    @function_tool
    async def lookup(key: str) -> dict[str, str]:
        """Look up a key."""
        return {"key": key, "value": key.upper()}

    agent = Agent(name="bench", instructions="Look things up.", tools=[lookup], model=FakeModel())
    config = RunConfig(tracing_disabled=True)

    async def one() -> None:
        await Runner.run(agent, "look everything up", max_turns=30, run_config=config)

    return await timed(one)


async def load(context: RequestContext) -> tuple[float, float, float, float]:
    """Throughput, p50 and p99 added latency, and CPU seconds per model call — the figure
    that does not depend on what else the machine is running."""
    ideal = (LOAD_ROUNDS + 1) * LOAD_LATENCY
    added: list[float] = []
    deps = our_deps(RoundsModel(LOAD_ROUNDS, LOAD_LATENCY), None)

    async def one() -> None:
        started = time.perf_counter()
        await run_agent("look up", AgentConfig(), context, deps)
        added.append(time.perf_counter() - started - ideal)

    started, cpu_started = time.perf_counter(), time.process_time()
    await asyncio.gather(*(one() for _ in range(LOAD_RUNS)))
    wall = time.perf_counter() - started
    cpu_per_call = (time.process_time() - cpu_started) / (LOAD_RUNS * (LOAD_ROUNDS + 1))
    added.sort()
    p99 = added[int(len(added) * 0.99) - 1]
    return LOAD_RUNS / wall, statistics.median(added), p99, cpu_per_call


async def persistent_runtime(folder: Path) -> tuple[Runtime, RequestContext]:
    runtime = Runtime.from_settings(Settings(data_dir=folder))
    await runtime.migrate()
    async with runtime.database.transaction() as session:
        user = await directory.create_user(session, "bench@bench.test", "Bench")
        mandate = await directory.create_mandate(session, "bench")
        await directory.add_membership(
            session, user_id=user.id, mandate_id=mandate.id, role=Role.member
        )
    return runtime, RequestContext(user.id, mandate.id, Role.member)


async def main() -> None:
    logging.disable(logging.WARNING)
    context = RequestContext("bench-user", "bench-mandate", Role.member)
    per_round = {}
    per_round["agentur (in memory)"] = await ours(context, None) / TURNS
    with tempfile.TemporaryDirectory() as folder:
        runtime, stored_context = await persistent_runtime(Path(folder))
        try:
            per_round["agentur (SQLite trace)"] = await ours(stored_context, runtime) / TURNS
        finally:
            await runtime.close()
    per_round["pydantic-ai Agent"] = await pydantic_ai_agent() / TURNS
    per_round["OpenAI Agents SDK"] = await openai_agents_sdk() / TURNS

    fastest_peer = min(per_round["pydantic-ai Agent"], per_round["OpenAI Agents SDK"])
    print(f"Per-round overhead, {ROUNDS} rounds x {TOOLS_PER_ROUND} read-only tools + answer")
    print(f"(median of {REPEATS} runs, zero-latency fake models)")
    for name, seconds in per_round.items():
        ratio = seconds / fastest_peer
        print(f"  {name:<24} {seconds * 1e3:8.3f} ms/round   x{ratio:5.2f} of fastest peer")
    await load(context)  # warm-up: first-use caches (schemas, selection) are not the steady state
    throughput, median_added, p99, cpu_per_call = await load(context)
    print(
        f"\n{LOAD_RUNS} concurrent runs, {LOAD_LATENCY * 1e3:.0f} ms model latency, "
        f"{LOAD_ROUNDS + 1} model calls each (in memory):"
    )
    print(f"  throughput          {throughput:8.1f} runs/s")
    print(f"  added latency p50   {median_added * 1e3:8.1f} ms")
    print(f"  added latency p99   {p99 * 1e3:8.1f} ms")
    print(f"  CPU per model call  {cpu_per_call * 1e3:8.3f} ms (loop, tools, gateway, fake model)")


if __name__ == "__main__":
    asyncio.run(main())
