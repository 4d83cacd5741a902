"""The knowledge (RAG) hook before a round, the round-memory hook after it and the
workflow-memory hook after a completed run: each is bounded in time and its failures are logged
and traced, never passed on to the run."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable
from typing import TypeVar

from agentur.agent.dependencies import AgentResult, RunStatus
from agentur.agent.hooks import RoundRecord, RunRecord, ToolResultRecord
from agentur.agent.redact import redact, redact_text
from agentur.agent.run_state import RunState
from agentur.agent.trace import TraceKind
from agentur.ai.messages import AiResponse
from agentur.tools.run_tool import ToolOutcome

logger = logging.getLogger(__name__)

MEMORY_PREVIEW_CHARS = 500

T = TypeVar("T")


async def _guarded(
    run: RunState, hook: str, seconds: float, call: Callable[[], Awaitable[T]], failed: T
) -> T:
    try:
        async with asyncio.timeout(seconds):
            return await call()
    except Exception as error:  # a hook's failure never becomes the run's failure
        logger.warning("%s hook failed in run %s: %r", hook, run.prepared.run_id, error)
        run.trace.add(
            TraceKind.hook_failure,
            {"hook": hook, "error": f"{type(error).__name__}: {error}"},
            round_index=run.rounds,
        )
        return failed


async def knowledge_block(run: RunState) -> str:
    rag = run.deps.rag
    if rag is None:
        return ""
    prepared = run.prepared
    return await _guarded(
        run,
        "rag",
        run.deps.settings.agent_rag_timeout_seconds,
        lambda: rag(prepared.prompt, run.context, workflow_id=prepared.workflow_id),
        "",
    )


def _file_refs(outcomes: list[ToolOutcome]) -> list[str]:
    """Files a round's successful calls touched (a failed call touched nothing)."""
    refs: list[str] = []
    for outcome in outcomes:
        if outcome.is_error:
            continue
        candidates = [outcome.call.arguments.get("file_id")]
        candidates += list(outcome.call.arguments.get("file_ids") or [])
        if isinstance(outcome.result, dict):
            candidates.append(outcome.result.get("file_id"))
        refs.extend(ref for ref in candidates if isinstance(ref, str) and ref not in refs)
    return refs


async def remember_round(run: RunState, response: AiResponse, outcomes: list[ToolOutcome]) -> None:
    deps, workflow_id = run.deps, run.prepared.workflow_id
    if workflow_id is None or (deps.round_memory is None and deps.workflow_memory is None):
        return
    record = RoundRecord(
        workflow_id=workflow_id,
        run_id=run.prepared.run_id,
        round_index=run.rounds,
        file_refs=_file_refs(outcomes),
        tool_results=[
            ToolResultRecord(
                tool_name=o.call.name,
                arguments=redact(o.call.arguments),
                result_preview=redact_text(o.content[:MEMORY_PREVIEW_CHARS]),
                is_error=o.is_error,
            )
            for o in outcomes
        ],
        decisions=response.text,
    )
    run.round_records.append(record)
    memory = deps.round_memory
    if memory is not None:
        seconds = deps.settings.agent_round_memory_timeout_seconds
        await _guarded(
            run, "round_memory", seconds, lambda: memory.save_round(record, run.context), None
        )


async def remember_run(run: RunState, result: AgentResult) -> None:
    """Hand a completed run to the workflow memory; unfinished runs leave only round memory."""
    memory, workflow_id = run.deps.workflow_memory, run.prepared.workflow_id
    if memory is None or workflow_id is None or result.status is not RunStatus.completed:
        return
    rounds = run.round_records
    record = RunRecord(
        workflow_id=workflow_id,
        run_id=run.prepared.run_id,
        prompt=redact_text(run.prepared.prompt),
        final_text=redact_text(result.final_text),
        file_refs=list(dict.fromkeys(ref for r in rounds for ref in r.file_refs)),
        tool_results=[tool for r in rounds for tool in r.tool_results],
    )
    seconds = run.deps.settings.agent_workflow_memory_timeout_seconds
    await _guarded(
        run, "workflow_memory", seconds, lambda: memory.save_run(record, run.context), None
    )
