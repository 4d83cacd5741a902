"""The knowledge (RAG) hook before a round and the round-memory hook after it (A5): both are
bounded in time and their failures are logged and traced, never passed on to the run."""

from __future__ import annotations

import asyncio
import logging

from agentur.agent.hooks import RoundRecord, ToolResultRecord
from agentur.agent.redact import redact, redact_text
from agentur.agent.run_state import RunState
from agentur.agent.trace import TraceKind
from agentur.ai.messages import AiResponse
from agentur.tools.run_tool import ToolOutcome

logger = logging.getLogger(__name__)

MEMORY_PREVIEW_CHARS = 500


async def knowledge_block(run: RunState) -> str:
    rag = run.deps.rag
    if rag is None:
        return ""
    try:
        async with asyncio.timeout(run.deps.settings.agent_rag_timeout_seconds):
            return await rag(run.prepared.prompt, run.context, workflow_id=run.prepared.workflow_id)
    except Exception as error:  # A5: the round goes on without the knowledge block
        logger.warning("knowledge hook failed in run %s: %r", run.prepared.run_id, error)
        run.trace.add(
            TraceKind.hook_failure,
            {"hook": "rag", "error": f"{type(error).__name__}: {error}"},
            round_index=run.rounds,
        )
        return ""


def _file_refs(outcomes: list[ToolOutcome]) -> list[str]:
    refs: list[str] = []
    for outcome in outcomes:
        candidates = [outcome.call.arguments.get("file_id")]
        candidates += list(outcome.call.arguments.get("file_ids") or [])
        if isinstance(outcome.result, dict):
            candidates.append(outcome.result.get("file_id"))
        refs.extend(ref for ref in candidates if isinstance(ref, str) and ref not in refs)
    return refs


async def remember_round(run: RunState, response: AiResponse, outcomes: list[ToolOutcome]) -> None:
    memory, workflow_id = run.deps.round_memory, run.prepared.workflow_id
    if memory is None or workflow_id is None:
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
    try:
        async with asyncio.timeout(run.deps.settings.agent_round_memory_timeout_seconds):
            await memory.save_round(record, run.context)
    except Exception as error:  # A5: losing a memory entry must not lose the run
        logger.warning("round memory failed in run %s: %r", run.prepared.run_id, error)
        run.trace.add(
            TraceKind.hook_failure,
            {"hook": "round_memory", "error": f"{type(error).__name__}: {error}"},
            round_index=run.rounds,
        )
