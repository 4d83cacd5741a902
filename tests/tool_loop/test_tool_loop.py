"""The tool loop on its own: steps until an answer or a stop condition, corrections counted as
steps, tool calls through the lifecycle wrapper with the typed run context, and the event
stream that never lets the loop and its consumer work at the same time."""

from __future__ import annotations

import asyncio
from dataclasses import dataclass, field

import pytest
from pydantic import BaseModel

from agentur.ai.messages import ToolCall
from agentur.context import RequestContext, Role
from agentur.tool_loop.event_stream import Sink, streamed
from agentur.tool_loop.events import AgentEvent, EventType
from agentur.tool_loop.loop import LoopDriver, ModelTurn, run_loop
from agentur.tool_loop.prepare_step import StepOffer
from agentur.tool_loop.run_context import RunContext
from agentur.tool_loop.run_tool import ToolOutcome
from agentur.tool_loop.stop_conditions import step_count_is
from agentur.tool_loop.tool import Tool

REQUEST = RequestContext("user-1", "mandate-1", Role.member)


@dataclass
class Counter:
    seen: list[str] = field(default_factory=list)


class Word(BaseModel):
    word: str


async def remember(args: Word, context: RunContext[Counter]) -> str:
    context.deps.seen.append(f"{context.round}:{args.word}")
    return args.word.upper()


REMEMBER = Tool("remember", "Remember a word.", Word, remember, read_only=True)


@dataclass(kw_only=True)
class Scripted(LoopDriver):
    """Turns from a script: a list of calls, None for a correction, or text for an answer."""

    script: list[object]
    recorded: list[list[ToolOutcome]] = field(default_factory=list)
    ended: list[int] = field(default_factory=list)

    async def prepare_step(self, step: int) -> StepOffer:
        return StepOffer.of([REMEMBER], lambda tool: None)  # type: ignore[arg-type, return-value]

    async def model_turn(self, step: int, offer: StepOffer) -> ModelTurn | None:
        turn = self.script.pop(0)
        if turn is None:
            return None
        if isinstance(turn, str):
            return ModelTurn(turn)
        return ModelTurn("", tuple(turn))  # type: ignore[arg-type]

    async def after_tools(self, step: int, turn: ModelTurn, outcomes: list[ToolOutcome]) -> None:
        self.recorded.append(outcomes)

    async def end_step(self, step: int) -> None:
        self.ended.append(step)


def driver(script: list[object], events: list[AgentEvent] | None = None) -> Scripted:
    context = RunContext(request=REQUEST, runtime=None, deps=Counter())  # type: ignore[arg-type]
    sink = events.append if events is not None else (lambda _: None)
    return Scripted(context=context, emit=sink, script=script)


async def test_tool_steps_then_an_answer() -> None:
    events: list[AgentEvent] = []
    loop = driver(
        [[ToolCall("a", "remember", {"word": "one"}), ToolCall("b", "nope", {})], "done"],
        events,
    )
    end = await run_loop(loop, [step_count_is(5)])
    assert (end.answer, end.steps, end.stopped_by) == ("done", 2, None)
    assert loop.context.deps.seen == ["1:one"]  # typed deps, the step set by the loop
    first, missing = loop.recorded[0]
    assert (first.content, first.is_error) == ("ONE", False)
    assert missing.is_error and "offered: remember" in missing.content
    kinds = {(e.type, e.data["id"], e.data["round"]) for e in events}
    assert kinds == {
        (kind, id, 1) for kind in (EventType.tool_call, EventType.tool_result) for id in "ab"
    }
    assert loop.ended == [1, 2]


async def test_a_stop_condition_ends_the_loop_and_corrections_count_as_steps() -> None:
    call = [ToolCall("a", "remember", {"word": "x"})]
    loop = driver([None, call, call, "never reached"])
    end = await run_loop(loop, [step_count_is(3)])
    assert end.answer is None and end.steps == 3
    assert end.stopped_by is not None and end.stopped_by.name == "step_count_is(3)"
    assert loop.context.deps.seen == ["2:x", "3:x"]


async def test_a_long_result_is_windowed_in_the_context_store() -> None:
    loop = driver([[ToolCall("w", "remember", {"word": "y" * 50})], "ok"])
    loop.limits = type(loop.limits)(max_result_chars=10)
    await run_loop(loop, [step_count_is(3)])
    assert '"total_length": 50' in loop.recorded[0][0].content
    assert loop.context.results.texts["w"] == "Y" * 50


async def test_the_stream_waits_for_its_consumer() -> None:
    log: list[str] = []

    async def work(sink: Sink) -> None:
        for item in ("a", "b"):
            log.append(f"sent {item}")
            await sink(item)
            log.append(f"resumed after {item}")

    async for item in streamed(work):
        await asyncio.sleep(0.01)  # the producer must not run on meanwhile
        log.append(f"handled {item}")
    assert log == [
        "sent a",
        "handled a",
        "resumed after a",
        "sent b",
        "handled b",
        "resumed after b",
    ]


async def test_the_stream_raises_the_loops_error_and_stops_it_when_left() -> None:
    async def failing(sink: Sink) -> None:
        await sink("first")
        raise ValueError("broken")

    seen = []
    with pytest.raises(ValueError, match="broken"):
        async for item in streamed(failing):
            seen.append(item)
    assert seen == ["first"]

    cancelled = asyncio.Event()

    async def endless(sink: Sink) -> None:
        try:
            while True:
                await sink("again")
        except asyncio.CancelledError:
            cancelled.set()
            raise

    stream = streamed(endless)
    assert await anext(stream) == "again"
    await stream.aclose()
    assert cancelled.is_set()
