"""A4: read-only calls of one turn overlap; others run alone in model order; results keep the
emitted order. Overlap is proven with a barrier that only opens when both calls are inside."""

from __future__ import annotations

import asyncio

from pydantic import BaseModel

from agentur.agent.config import AgentConfig
from agentur.agent.events import EventType
from agentur.agent.run_agent import run_agent
from agentur.ai.messages import Role
from agentur.ai.providers.scripted import ScriptedTurn
from agentur.context import RequestContext
from agentur.context import Role as UserRole
from agentur.tools.tool import Tool, ToolContext
from tests.agent.support import Recorder, call, deps, scripted

CONTEXT = RequestContext("user-1", "mandate-1", UserRole.member)


class Label(BaseModel):
    label: str


def probe_tools(log: list[str], barrier: asyncio.Barrier) -> list[Tool]:
    async def read(args: Label, _: ToolContext) -> str:
        log.append(f"start {args.label}")
        # Both reads must be inside at once for the barrier to open; sequential runs deadlock
        # (and the wait_for turns that into a failure instead of a hang).
        await asyncio.wait_for(barrier.wait(), timeout=10)
        log.append(f"end {args.label}")
        return f"read {args.label}"

    async def write(args: Label, _: ToolContext) -> str:
        log.append(f"start {args.label}")
        await asyncio.sleep(0)
        await asyncio.sleep(0)
        log.append(f"end {args.label}")
        return f"wrote {args.label}"

    return [
        Tool("read", "read", Label, read, read_only=True),
        Tool("write", "write", Label, write, read_only=False),
    ]


async def test_read_only_calls_overlap_and_writes_run_alone_in_model_order() -> None:
    log: list[str] = []
    turn = ScriptedTurn.calls(
        call("read", "c1", label="r1"),
        call("read", "c2", label="r2"),
        call("write", "c3", label="w1"),
        call("write", "c4", label="w2"),
        call("read", "c5", label="r3"),
        call("read", "c6", label="r4"),
    )
    ai, provider = scripted([turn, ScriptedTurn(text="done")])
    recorder = Recorder()

    result = await run_agent(
        "go", AgentConfig(), CONTEXT, deps(ai, probe_tools(log, asyncio.Barrier(2))), emit=recorder
    )

    assert result.status == "completed", result.final_text
    # r1 and r2 were both started before either ended: they overlapped.
    assert log[:2] == ["start r1", "start r2"]
    assert set(log[2:4]) == {"end r1", "end r2"}
    # Each write ran alone, after the reads before it and before the reads after it.
    assert log[4:8] == ["start w1", "end w1", "start w2", "end w2"]
    assert log[8:10] == ["start r3", "start r4"]
    # Results go back to the model in the order it emitted the calls.
    tool_messages = [m for m in provider.received[1].messages if m.role is Role.tool]
    assert [m.tool_call_id for m in tool_messages] == ["c1", "c2", "c3", "c4", "c5", "c6"]
    assert [m.content for m in tool_messages][2:4] == ["wrote w1", "wrote w2"]
    assert [e["id"] for e in recorder.of(EventType.tool_call)][2:4] == ["c3", "c4"]


async def test_results_keep_emitted_order_when_the_first_call_finishes_last() -> None:
    second_done = asyncio.Event()

    async def slow(_: Label, __: ToolContext) -> str:
        await asyncio.wait_for(second_done.wait(), timeout=10)
        return "first"

    async def fast(_: Label, __: ToolContext) -> str:
        second_done.set()
        return "second"

    tools = [
        Tool("slow", "s", Label, slow, read_only=True),
        Tool("fast", "f", Label, fast, read_only=True),
    ]
    ai, provider = scripted(
        [
            ScriptedTurn.calls(call("slow", "a", label="x"), call("fast", "b", label="y")),
            ScriptedTurn(text="ok"),
        ]
    )
    recorder = Recorder()
    await run_agent("go", AgentConfig(), CONTEXT, deps(ai, tools), emit=recorder)

    finished = [e["id"] for e in recorder.of(EventType.tool_result)]
    assert finished == ["b", "a"]  # completion order
    sent = [m.content for m in provider.received[1].messages if m.role is Role.tool]
    assert sent == ["first", "second"]  # emitted order
