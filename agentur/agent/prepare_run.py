"""Everything before the first round, done while the caller can still get a plain error:
the workflow (checked, or created), its earlier messages, the run row, the user's prompt."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from agentur.agent.config import AgentConfig
from agentur.agent.dependencies import AgentDependencies
from agentur.agent.trace import TraceStore
from agentur.ai.messages import Message
from agentur.context import RequestContext
from agentur.names import name_from_text
from agentur.storage.models import new_id
from agentur.workflows.service import WorkflowService

WORKFLOW_TITLE_CHARS = 80


@dataclass
class PreparedRun:
    run_id: str
    prompt: str
    config: AgentConfig
    context: RequestContext
    workflow_id: str | None
    history: list[Message] = field(default_factory=list)
    trace_store: TraceStore | None = None


def _history_message(role: str, content: str, data: dict[str, Any] | None) -> Message | None:
    # Only the visible conversation; tool traffic of earlier runs lives in their traces.
    if role == "user":
        return Message.user(content)
    if role == "assistant" and content:
        return Message.assistant(content)
    return None


async def prepare_run(
    prompt: str,
    config: AgentConfig,
    context: RequestContext,
    deps: AgentDependencies,
    *,
    workflow_id: str | None = None,
    run_id: str | None = None,
    conversation: bool = True,
) -> PreparedRun:
    """`conversation=False` without a `workflow_id`: the run keeps no conversation (its
    caller brings the history, as OpenAI-style clients do); its trace is still stored."""
    run_id = run_id or new_id()
    if config.temperature is None:
        config = config.model_copy(update={"temperature": deps.settings.agent_temperature})
    runtime = deps.runtime
    if runtime is None:
        return PreparedRun(run_id, prompt, config, context, workflow_id)
    if workflow_id is None and not conversation:
        return await _with_trace(PreparedRun(run_id, prompt, config, context, None), deps)
    history: list[Message] = []
    async with runtime.database.transaction() as session:
        workflows = WorkflowService(session, context)
        if workflow_id is None:
            workflow = await workflows.create(conversation_title(prompt))
        else:
            workflow = await workflows.get(workflow_id)  # 404 for anyone else's
            limit = deps.settings.agent_history_messages
            if limit:
                _, total = await workflows.messages(workflow.id, limit=1)
                earlier, _ = await workflows.messages(
                    workflow.id, offset=max(0, total - limit), limit=limit
                )
                history = [
                    message
                    for row in earlier
                    if (message := _history_message(row.role, row.content, row.data))
                ]
        await workflows.append(workflow.id, "user", prompt, {"agent_run_id": run_id})
    prepared = PreparedRun(run_id, prompt, config, context, workflow.id, history)
    return await _with_trace(prepared, deps)


def conversation_title(prompt: str) -> str:
    return name_from_text(prompt, WORKFLOW_TITLE_CHARS)


async def _with_trace(prepared: PreparedRun, deps: AgentDependencies) -> PreparedRun:
    """The run row its trace goes to, when traces are stored."""
    if deps.runtime is None or not deps.stores_trace:
        return prepared
    prepared.trace_store = TraceStore(deps.runtime.database)
    await prepared.trace_store.create_run(
        prepared.run_id,
        prepared.context,
        prompt=prepared.prompt,
        config=prepared.config.model_dump(mode="json"),
        workflow_id=prepared.workflow_id,
    )
    return prepared


async def record_answer(
    deps: AgentDependencies, prepared: PreparedRun, text: str, status: str
) -> None:
    if deps.runtime is None or prepared.workflow_id is None:
        return
    async with deps.runtime.database.transaction() as session:
        await WorkflowService(session, prepared.context).append(
            prepared.workflow_id,
            "assistant",
            text,
            {"agent_run_id": prepared.run_id, "status": status},
        )
