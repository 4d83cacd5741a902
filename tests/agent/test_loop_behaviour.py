"""Loop behaviour: toolboxes, corrective errors, raising tools, hooks, time zone, cancellation."""

from __future__ import annotations

import asyncio
from datetime import datetime
from zoneinfo import ZoneInfo

from pydantic import BaseModel

from agentur.agent.active_runs import ActiveRuns
from agentur.agent.config import AgentConfig
from agentur.agent.conversation_manager import temporal_block
from agentur.agent.events import EventType
from agentur.agent.hooks import RoundRecord
from agentur.agent.prepare_run import prepare_run
from agentur.agent.run_agent import run_agent
from agentur.ai.messages import AiRequest, Role
from agentur.ai.providers.scripted import ScriptedTurn
from agentur.context import RequestContext
from agentur.context import Role as UserRole
from agentur.tools.tool import Tool, ToolContext
from agentur.tools.toolboxes import ToolboxEnvironment
from tests.agent.support import Recorder, call, deps, scripted

CONTEXT = RequestContext("user-1", "mandate-1", UserRole.member)


class Count(BaseModel):
    count: int


async def double(args: Count, _: ToolContext) -> dict:
    return {"doubled": args.count * 2}


async def explode(args: Count, _: ToolContext) -> dict:
    raise RuntimeError("disk on fire")


DOUBLE = Tool("double", "Double a number.", Count, double, read_only=True)
LEDGER = Tool("ledger", "Trustee ledger.", Count, double, read_only=True, toolbox="trustee")


def tool_names(request: AiRequest) -> list[str]:
    return sorted(t.name for t in request.tools)


def toolbox_enum(request: AiRequest) -> list[str]:
    meta = next(t for t in request.tools if t.name == "request_toolbox")
    return meta.parameters["properties"]["toolbox_id"]["enum"]


async def test_request_toolbox_changes_the_tool_list_of_the_next_round_only() -> None:
    ai, provider = scripted(
        [
            ScriptedTurn.calls(
                call("request_toolbox", "t1", toolbox_id="trustee", reason="need the ledger"),
                call("ledger", "t2", count=1),  # same turn: not offered yet
            ),
            ScriptedTurn.call("ledger", "t3", count=2),
            ScriptedTurn(text="done"),
        ]
    )
    run_deps = deps(ai, [DOUBLE, LEDGER])
    run_deps.toolbox_environment = ToolboxEnvironment(feature_codes=frozenset({"trustee"}))
    recorder = Recorder()

    result = await run_agent("books", AgentConfig(), CONTEXT, run_deps, emit=recorder)

    assert result.status == "completed"
    first, second = provider.received[0], provider.received[1]
    assert "ledger" not in tool_names(first) and "trustee" in toolbox_enum(first)
    assert "ledger" in tool_names(second) and "trustee" not in toolbox_enum(second)
    results = {e["id"]: e for e in recorder.of(EventType.tool_result)}
    assert not results["t1"]["is_error"]
    assert (
        results["t2"]["is_error"] and "no tool 'ledger' in this round" in results["t2"]["content"]
    )
    assert results["t3"]["content"] == '{"doubled": 4}'
    assert any(e.get("toolbox_activated") == "trustee" for e in recorder.of(EventType.status))


async def test_request_toolbox_is_authorized_like_any_tool() -> None:
    ai, provider = scripted(
        [ScriptedTurn.call("request_toolbox", "t1", toolbox_id="jira", reason="tickets")]
        + [ScriptedTurn(text="ok")]
    )
    recorder = Recorder()
    await run_agent("x", AgentConfig(), CONTEXT, deps(ai, [DOUBLE]), emit=recorder)
    result = recorder.of(EventType.tool_result)[0]
    assert result["is_error"] and "needs a jira connection" in result["content"]
    assert "jira" in toolbox_enum(provider.received[1])


async def test_invalid_arguments_produce_a_corrective_result_and_the_run_goes_on() -> None:
    ai, provider = scripted(
        [
            ScriptedTurn.call("double", "c1", count="many"),
            ScriptedTurn.call("double", "c2", count=3),
            ScriptedTurn(text="six"),
        ]
    )
    result = await run_agent("x", AgentConfig(), CONTEXT, deps(ai, [DOUBLE]))
    assert result.status == "completed" and result.final_text == "six"
    corrective = next(m for m in provider.received[1].messages if m.role is Role.tool)
    assert corrective.is_error
    assert corrective.content.startswith("invalid arguments for double: count:")
    assert "valid integer" in corrective.content and "Call it again" in corrective.content


async def test_a_raising_tool_becomes_an_error_result_not_a_crashed_run() -> None:
    ai, provider = scripted(
        [ScriptedTurn.call("explode", "c1", count=1), ScriptedTurn(text="sorry")]
    )
    tools = [Tool("explode", "x", Count, explode, read_only=False)]
    result = await run_agent("x", AgentConfig(), CONTEXT, deps(ai, tools))
    assert result.status == "completed"
    message = next(m for m in provider.received[1].messages if m.role is Role.tool)
    assert message.is_error and "RuntimeError: disk on fire" in message.content


async def test_a_tool_past_its_timeout_becomes_an_error_result() -> None:
    async def hang(args: Count, _: ToolContext) -> dict:
        await asyncio.Event().wait()  # never set: only the wrapper's timeout can end it
        return {}

    answer = "The count could not be taken: the tool failed to finish."
    ai, provider = scripted([ScriptedTurn.call("hang", "c1", count=1), ScriptedTurn(text=answer)])
    tools = [Tool("hang", "h", Count, hang, read_only=True, timeout_seconds=0.05)]
    result = await run_agent("x", AgentConfig(), CONTEXT, deps(ai, tools))
    assert result.status == "completed" and result.final_text == answer
    message = next(m for m in provider.received[1].messages if m.role is Role.tool)
    assert message.is_error and message.content == "error: hang did not finish within 0.05 s"


async def test_viewer_cannot_run_a_changing_tool() -> None:
    viewer = RequestContext("user-2", "mandate-1", UserRole.viewer)
    ai, provider = scripted([ScriptedTurn.call("explode", "c1", count=1), ScriptedTurn(text="ok")])
    tools = [Tool("explode", "x", Count, explode, read_only=False)]
    await run_agent("x", AgentConfig(), viewer, deps(ai, tools))
    message = next(m for m in provider.received[1].messages if m.role is Role.tool)
    assert "read-only" in message.content and "disk on fire" not in message.content


class FailingMemory:
    def __init__(self) -> None:
        self.calls: list[RoundRecord] = []

    async def save_round(self, record: RoundRecord, context: RequestContext) -> None:
        self.calls.append(record)
        raise ConnectionError("vector store down")


async def test_rag_and_round_memory_failures_do_not_block_the_run() -> None:
    async def broken_rag(prompt: str, context: RequestContext, *, workflow_id: str | None) -> str:
        raise TimeoutError("embedding service timed out")

    ai, provider = scripted([ScriptedTurn.call("double", "c1", count=2), ScriptedTurn(text="4")])
    run_deps = deps(ai, [DOUBLE])
    run_deps.rag = broken_rag
    memory = FailingMemory()
    run_deps.round_memory = memory
    prepared = await prepare_run("x", AgentConfig(), CONTEXT, run_deps, workflow_id="wf-1")
    from agentur.agent.run_agent import execute_run

    result = await execute_run(prepared, run_deps)

    assert result.status == "completed" and result.final_text == "4"
    assert len(memory.calls) == 1 and memory.calls[0].tool_results[0].tool_name == "double"


async def test_rag_block_rides_in_the_round_context_message() -> None:
    seen: list[str] = []

    async def rag(prompt: str, context: RequestContext, *, workflow_id: str | None) -> str:
        seen.append(prompt)
        return "The invoice total is CHF 42."

    ai, provider = scripted([ScriptedTurn(text="42")])
    run_deps = deps(ai, [DOUBLE])
    run_deps.rag = rag
    await run_agent("what is the total?", AgentConfig(), CONTEXT, run_deps)
    assert seen == ["what is the total?"]
    context = provider.received[0].messages[-1]
    assert context.volatile and "The invoice total is CHF 42." in context.content
    assert "CHF 42" not in provider.received[0].messages[0].content


async def test_temporal_block_uses_the_request_time_zone() -> None:
    zone = "Asia/Kathmandu"  # UTC+05:45: no server default produces this by accident
    context = CONTEXT.with_changes(timezone=zone)
    ai, provider = scripted([ScriptedTurn(text="hi")])
    before = datetime.now(ZoneInfo(zone)).date().isoformat()
    await run_agent("what day is it?", AgentConfig(), context, deps(ai, []))
    after = datetime.now(ZoneInfo(zone)).date().isoformat()
    context = provider.received[0].messages[-1]
    assert context.role is Role.user and context.volatile
    assert f"time zone {zone} (UTC+05:45)" in context.content
    assert f", {before}." in context.content or f", {after}." in context.content


def test_temporal_block_of_one_instant_differs_per_zone() -> None:
    # The block is cached per minute; aware datetimes of one instant compare equal across
    # zones, so the zone must be part of the cache key.
    instant = datetime(2026, 3, 2, 23, 30, tzinfo=ZoneInfo("UTC"))
    utc = temporal_block(instant)
    kathmandu = temporal_block(instant.astimezone(ZoneInfo("Asia/Kathmandu")))
    assert "23:30 in the time zone UTC" in utc and "Monday, 2026-03-02" in utc
    assert "05:15 in the time zone Asia/Kathmandu (UTC+05:45)" in kathmandu
    assert "Tuesday, 2026-03-03" in kathmandu


async def test_tool_set_none_offers_no_tools_and_read_only_offers_only_readers() -> None:
    tools = [DOUBLE, Tool("explode", "x", Count, explode)]
    ai, provider = scripted([ScriptedTurn(text="a"), ScriptedTurn(text="b")])
    await run_agent("x", AgentConfig(tool_set="none"), CONTEXT, deps(ai, tools))
    await run_agent("x", AgentConfig(tool_set="read_only"), CONTEXT, deps(ai, tools))
    assert provider.received[0].tools == ()
    assert "explode" not in tool_names(provider.received[1])
    assert "double" in tool_names(provider.received[1])


async def test_cancellation_ends_the_run_with_status_cancelled() -> None:
    entered = asyncio.Event()

    async def hang(_: Count, __: ToolContext) -> str:
        entered.set()
        await asyncio.Event().wait()
        return "never"

    ai, _ = scripted([ScriptedTurn.call("hang", "c1", count=1)])
    run_deps = deps(ai, [Tool("hang", "h", Count, hang, read_only=True)])
    prepared = await prepare_run("wait", AgentConfig(), CONTEXT, run_deps)
    runs = ActiveRuns()
    handle = runs.start(prepared, run_deps)
    await asyncio.wait_for(entered.wait(), timeout=10)

    assert runs.get(handle.run_id, CONTEXT.with_changes(user_id="intruder")) is None
    assert runs.get(handle.run_id, CONTEXT) is handle
    assert handle.cancel()
    result = await handle.result()
    events = [event async for event in handle.events()]

    assert result.status == "cancelled"
    assert "cancelled" in result.final_text
    assert [e.type for e in events][-2:] == [EventType.final, EventType.agent_summary]
    assert len(runs) == 0
