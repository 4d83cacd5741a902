"""The agent's workflow-memory hook: one record per completed run, with every round's tool
results and touched files, secrets redacted; unfinished runs hand nothing on; a failing or
hanging hook never costs the run."""

from __future__ import annotations

import asyncio

from pydantic import BaseModel

from agentur.agent.config import AgentConfig
from agentur.agent.dependencies import AgentDependencies
from agentur.agent.hooks import RunRecord
from agentur.agent.prepare_run import prepare_run
from agentur.agent.run_agent import execute_run
from agentur.ai.providers.scripted import ScriptedTurn
from agentur.context import RequestContext, Role
from agentur.tools.tool import Tool, ToolContext
from tests.agent.support import call, deps, scripted

CONTEXT = RequestContext("user-1", "mandate-1", Role.member)
SECRET = "sk-" + "a1" * 12


class FileArguments(BaseModel):
    file_id: str


async def look(args: FileArguments, _: ToolContext) -> dict:
    return {"file_id": args.file_id, "content": f"total CHF 40 for {args.file_id}"}


LOOK = Tool("look", "Look at a file.", FileArguments, look, read_only=True)


class RecordingMemory:
    def __init__(self, error: Exception | None = None, hang: bool = False) -> None:
        self.records: list[RunRecord] = []
        self.error, self.hang = error, hang

    async def save_run(self, record: RunRecord, context: RequestContext) -> None:
        self.records.append(record)
        if self.hang:
            await asyncio.Event().wait()
        if self.error is not None:
            raise self.error


async def run_with(memory: RecordingMemory, run_deps: AgentDependencies, *, max_rounds: int = 5):
    run_deps.workflow_memory = memory
    prepared = await prepare_run(
        f"Check both files, key {SECRET}",
        AgentConfig(max_rounds=max_rounds),
        CONTEXT,
        run_deps,
        workflow_id="wf-1",
    )
    return await execute_run(prepared, run_deps)


def two_rounds() -> list[ScriptedTurn]:
    return [
        ScriptedTurn.call("look", "c1", file_id="file-a"),
        ScriptedTurn.calls(
            call("look", "c2", file_id="file-b"), call("look", "c3", file_id="file-a")
        ),
        ScriptedTurn(text=f"Both total CHF 40. ({SECRET})"),
    ]


async def test_a_completed_run_hands_one_record_with_all_rounds() -> None:
    ai, _ = scripted(two_rounds())
    memory = RecordingMemory()
    result = await run_with(memory, deps(ai, [LOOK]))
    assert result.status == "completed"
    [record] = memory.records
    assert (record.workflow_id, record.run_id) == ("wf-1", result.run_id)
    assert record.file_refs == ["file-a", "file-b"]
    assert [r.arguments["file_id"] for r in record.tool_results] == ["file-a", "file-b", "file-a"]
    assert "total CHF 40 for file-b" in record.tool_results[1].result_preview
    assert record.final_text == "Both total CHF 40. ([redacted])"
    assert record.prompt == "Check both files, key [redacted]"


async def test_an_unfinished_run_hands_nothing_on() -> None:
    ai, _ = scripted(two_rounds())
    memory = RecordingMemory()
    result = await run_with(memory, deps(ai, [LOOK]), max_rounds=1)
    assert result.status == "max_rounds_reached" and memory.records == []


async def test_a_failing_or_hanging_hook_does_not_cost_the_run() -> None:
    ai, _ = scripted(two_rounds())
    failing = RecordingMemory(error=ConnectionError("database gone"))
    result = await run_with(failing, deps(ai, [LOOK]))
    assert result.status == "completed" and len(failing.records) == 1

    ai, _ = scripted(two_rounds())
    hanging = RecordingMemory(hang=True)
    run_deps = deps(ai, [LOOK], agent_workflow_memory_timeout_seconds=0.05)
    result = await asyncio.wait_for(run_with(hanging, run_deps), timeout=10)
    assert result.status == "completed" and result.final_text.startswith("Both total")
