"""Execution order of one model turn's tool calls.

Consecutive read-only calls form a batch that runs concurrently (bounded by
`max_parallel`); any call that may change something runs alone, in the order the model
emitted it — so a read the model placed after a write sees the write. Results come back in
the emitted order whatever finished first.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable, Sequence

from agentur.ai.messages import ToolCall
from agentur.tool_loop.run_tool import ToolOutcome


def plan_batches(
    calls: Sequence[ToolCall], is_read_only: Callable[[ToolCall], bool]
) -> list[list[int]]:
    """Positions of `calls`, grouped: a batch is either read-only calls or one single call."""
    batches: list[list[int]] = []
    for position, call in enumerate(calls):
        if is_read_only(call) and batches and is_read_only(calls[batches[-1][0]]):
            batches[-1].append(position)
        else:
            batches.append([position])
    return batches


async def execute_tool_calls(
    calls: Sequence[ToolCall],
    run_one: Callable[[ToolCall], Awaitable[ToolOutcome]],
    is_read_only: Callable[[ToolCall], bool],
    max_parallel: int = 8,
) -> list[ToolOutcome]:
    # By position, not by call id: a model may (wrongly) reuse an id within one turn.
    outcomes: list[ToolOutcome | None] = [None] * len(calls)
    limiter = asyncio.Semaphore(max_parallel)

    async def bounded(position: int) -> None:
        async with limiter:
            outcomes[position] = await run_one(calls[position])

    for batch in plan_batches(calls, is_read_only):
        if len(batch) == 1:
            outcomes[batch[0]] = await run_one(calls[batch[0]])
        else:
            await asyncio.gather(*(bounded(position) for position in batch))
    return [outcome for outcome in outcomes if outcome is not None]
