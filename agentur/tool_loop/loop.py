"""The loop: per step, prepare what it offers, let the model take a turn, run the turn's tool
calls through the lifecycle wrapper (consecutive read-only calls concurrently), until the model
answers or a stop condition holds.

A caller configures it by subclassing `LoopDriver`: the model turn (how the call is made and
streamed), whether an answer is accepted, and what is recorded around the tools. The agent, its
sub-agents and the assistant's knowledge answer are such configurations.
"""

from __future__ import annotations

from collections.abc import Sequence
from contextlib import AbstractContextManager, nullcontext
from dataclasses import dataclass, field
from typing import Any

from agentur.ai.messages import ToolCall
from agentur.tool_loop.events import AnyEventSink, discard_event
from agentur.tool_loop.execute_tool_calls import execute_tool_calls
from agentur.tool_loop.prepare_step import StepOffer
from agentur.tool_loop.run_context import RunContext
from agentur.tool_loop.run_tool import ArgumentResolver, ToolLimits, ToolOutcome, run_tool
from agentur.tool_loop.stop_conditions import StopCondition
from agentur.tool_loop.tool import Tool


@dataclass(frozen=True, slots=True)
class ModelTurn:
    text: str
    calls: tuple[ToolCall, ...] = ()


@dataclass(frozen=True, slots=True)
class LoopEnd:
    steps: int
    answer: str | None = None  # None: a stop condition ended the loop
    stopped_by: StopCondition | None = None


@dataclass
class LoopDriver:
    """The loop's configuration; override the steps a caller shapes."""

    context: RunContext[Any]
    limits: ToolLimits = field(default_factory=ToolLimits)
    emit: AnyEventSink = discard_event
    max_parallel: int = 8
    resolve: ArgumentResolver | None = None

    def step_scope(self, step: int) -> AbstractContextManager[Any]:
        return nullcontext()

    async def prepare_step(self, step: int) -> StepOffer:
        raise NotImplementedError

    async def model_turn(self, step: int, offer: StepOffer) -> ModelTurn | None:
        """The model's turn; None when the step went to a correction and the loop goes on."""
        raise NotImplementedError

    async def answer(self, step: int, turn: ModelTurn) -> str | None:
        """A turn without tool calls: the answer, or None when it was refused (corrected)."""
        return turn.text

    async def before_tools(self, step: int, turn: ModelTurn) -> None:
        return None

    async def after_tools(self, step: int, turn: ModelTurn, outcomes: list[ToolOutcome]) -> None:
        return None

    async def end_step(self, step: int) -> None:
        return None

    async def run_call(self, tool: Tool | None, call: ToolCall) -> ToolOutcome:
        """One call through the lifecycle wrapper; a caller may answer some calls itself."""
        return await run_tool(tool, call, self.context, self.limits, self.emit, self.resolve)


async def run_loop(driver: LoopDriver, stop_when: Sequence[StopCondition]) -> LoopEnd:
    step = 0
    while True:
        step += 1
        with driver.step_scope(step):
            answer = await _step(driver, step)
            await driver.end_step(step)
        if answer is not None:
            return LoopEnd(step, answer=answer)
        for condition in stop_when:
            if condition.holds(step):
                return LoopEnd(step, stopped_by=condition)


async def _step(driver: LoopDriver, step: int) -> str | None:
    offer = await driver.prepare_step(step)
    turn = await driver.model_turn(step, offer)
    if turn is None:
        return None
    if not turn.calls:
        return await driver.answer(step, turn)
    await driver.before_tools(step, turn)
    outcomes = await run_calls(driver, step, offer, turn.calls)
    await driver.after_tools(step, turn, outcomes)
    return None


async def run_calls(
    driver: LoopDriver, step: int, offer: StepOffer, calls: tuple[ToolCall, ...]
) -> list[ToolOutcome]:
    context = driver.context
    context.round, context.offered_tools = step, offer.names
    by_name = offer.by_name
    return await execute_tool_calls(
        calls,
        lambda call: driver.run_call(by_name.get(call.name), call),
        lambda call: (tool := by_name.get(call.name)) is None or tool.read_only,
        driver.max_parallel,
    )
