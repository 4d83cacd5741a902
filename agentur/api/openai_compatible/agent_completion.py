"""`agentur-agent`: a full agent run as one chat completion. The last user message is the
prompt; the run's tools act inside agentur, so only the answer text reaches the client (tool
events are never streamed as content).

How the run ends decides the answer: completed → `finish_reason: "stop"`; stopped by its own
round or cost limit → `"length"` with the text the model had written so far; failed (model
outage, no model, the mandate's budget, a bug) or cancelled → an error in OpenAI's shape (an
HTTP error, or an `error` event once the stream has begun).

Conversations: by default a request keeps none — the client sends the history, as OpenAI's API
expects, and the run's trace alone is stored. `store: true` starts a conversation (visible in
the web app; the client's earlier messages are stored with it), `metadata.workflow_id`
continues one (its stored messages are the history); either way the answer names it in
`metadata.workflow_id` and the `X-Agentur-Workflow-Id` header. `metadata.max_rounds` and
`metadata.max_cost_chf` bound the run."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from typing import Any

from fastapi import Request
from fastapi.responses import JSONResponse, StreamingResponse
from pydantic import ValidationError

from agentur.agent.active_runs import AgentRunHandle
from agentur.agent.config import AgentConfig
from agentur.agent.dependencies import AgentResult, RunStatus
from agentur.agent.prepare_run import conversation_title, prepare_run
from agentur.agent.settings import AgentSettings
from agentur.ai.messages import Message, Role, Usage
from agentur.api.backpressure.tenant_limits import Slot
from agentur.api.openai_compatible.errors import OpenAIError
from agentur.api.openai_compatible.parameters import check_agent
from agentur.api.openai_compatible.schemas import ChatCompletionRequest
from agentur.api.openai_compatible.to_ai_request import to_messages
from agentur.api.openai_compatible.wire_format import DONE, STREAM_HEADERS, Completion
from agentur.api.routes.agent_runs import MAX_PROMPT_CHARS, agent_run_state
from agentur.context import RequestContext
from agentur.errors import NotFoundError
from agentur.runtime import Runtime
from agentur.tool_loop.events import AgentEvent, EventType
from agentur.workflows.service import WorkflowService

AGENT_MODEL = "agentur-agent"
WORKFLOW_KEY = "workflow_id"  # in the request's and the answer's `metadata`
# Ended by the run's own limits: the answer so far is the result, cut short.
CUT_SHORT = {RunStatus.max_rounds_reached, RunStatus.budget_exceeded}
INSUFFICIENT_QUOTA = 402
INTERNAL_ERROR = 500
# `metadata` keys that bound the run (see AgentConfig), with how their text is read.
RUN_LIMITS: dict[str, type] = {"max_rounds": int, "max_cost_chf": float}


def _usage(data: dict[str, Any]) -> Usage:
    return Usage(
        data.get("input_tokens", 0), data.get("output_tokens", 0), data.get("cached_tokens", 0)
    )


def _config(body: ChatCompletionRequest) -> AgentConfig:
    """The run's knobs: the temperature, and its limits from `metadata` (strings there, as
    OpenAI's metadata holds only strings)."""
    limits: dict[str, Any] = {}
    for key, kind in RUN_LIMITS.items():
        value = (body.metadata or {}).get(key)
        if value is None:
            continue
        try:
            limits[key] = kind(value)
            AgentConfig(**{key: limits[key]})
        except (ValueError, ValidationError) as error:
            raise OpenAIError(
                400, f"metadata.{key}: {value!r} is not a valid {key}", param=f"metadata.{key}"
            ) from error
    return AgentConfig(temperature=body.temperature, **limits)


async def _new_conversation(
    runtime: Runtime, context: RequestContext, prompt: str, earlier: tuple[Message, ...]
) -> str:
    """A workflow holding the client's earlier user and assistant messages."""
    async with runtime.database.transaction() as session:
        workflows = WorkflowService(session, context)
        workflow = await workflows.create(conversation_title(prompt))
        for message in earlier:
            if message.role in (Role.user, Role.assistant) and message.content:
                await workflows.append(workflow.id, message.role.value, message.content)
    return workflow.id


async def _start(
    request: Request,
    runtime: Runtime,
    body: ChatCompletionRequest,
    context: RequestContext,
    slot: Slot,
) -> tuple[AgentRunHandle, AgentSettings]:
    check_agent(body, AGENT_MODEL)
    last = body.messages[-1]
    if last.role != "user" or not last.text.strip():
        raise OpenAIError(
            400, "agentur-agent needs a user message with text last", param="messages"
        )
    if len(last.text) > MAX_PROMPT_CHARS:
        raise OpenAIError(
            400,
            f"the prompt has more than {MAX_PROMPT_CHARS} characters",
            param="messages",
            code="context_length_exceeded",
        )
    earlier = tuple(m for m in to_messages(body.messages[:-1]) if not m.tool_calls)
    earlier = tuple(m for m in earlier if m.role is not Role.tool)
    runs, settings = await agent_run_state(request, runtime)
    deps = runtime.agent_dependencies(settings)
    workflow_id = (body.metadata or {}).get(WORKFLOW_KEY)
    if workflow_id is None and body.store:
        workflow_id = await _new_conversation(runtime, context, last.text, earlier)
    config = _config(body)
    try:
        prepared = await prepare_run(
            last.text, config, context, deps, workflow_id=workflow_id, conversation=False
        )
    except NotFoundError as error:
        raise OpenAIError(
            404, f"conversation {workflow_id} not found", param=f"metadata.{WORKFLOW_KEY}"
        ) from error
    # Without a stored conversation the client's messages are the history; with one its
    # stored messages are, and only the client's instructions (system messages) join them.
    prepared.history.extend(m for m in earlier if workflow_id is None or m.role is Role.system)
    handle = runs.start(prepared, deps)
    slot.last_until(handle.task)  # the run's whole life, also past a client that went away
    return handle, settings


def _headers(handle: AgentRunHandle) -> dict[str, str]:
    headers = {"X-Agent-Run-Id": handle.run_id}
    if handle.prepared.workflow_id is not None:
        headers["X-Agentur-Workflow-Id"] = handle.prepared.workflow_id
    return headers


def _failure(status: RunStatus, error_status: int | None, error: str | None) -> OpenAIError:
    """The error a run that did not end by completion or its own limits answers with: the
    status of the gateway error behind it (a provider's failure or a bad answer: 502)."""
    if status is RunStatus.cancelled:
        return OpenAIError(409, "the agent run was cancelled")
    if error_status == INTERNAL_ERROR:  # a bug: nothing internal goes to the client
        return OpenAIError(500, "the agent run failed with an internal error; see the server log")
    code = "insufficient_quota" if error_status == INSUFFICIENT_QUOTA else None
    return OpenAIError(error_status or 502, error or "the agent run failed", code=code)


def _outcome(result: AgentResult) -> tuple[str, str]:
    """(finish reason, text) of a run that answered; raises the error of one that did not."""
    if result.status is RunStatus.completed:
        return "stop", result.final_text
    if result.status in CUT_SHORT and result.error_status is None:
        return "length", result.model_text
    raise _failure(result.status, result.error_status, result.error)


async def complete(
    request: Request,
    runtime: Runtime,
    body: ChatCompletionRequest,
    context: RequestContext,
    slot: Slot,
) -> JSONResponse:
    handle, settings = await _start(request, runtime, body, context, slot)
    try:
        result = await handle.result()
    except asyncio.CancelledError:  # the client went away
        if settings.agent_cancel_on_disconnect:
            handle.cancel()
        raise
    reason, text = _outcome(result)
    answer = Completion(AGENT_MODEL).whole(text, (), reason, result.usage)
    if result.workflow_id is not None:
        answer["metadata"] = {WORKFLOW_KEY: result.workflow_id}
    return JSONResponse(answer, headers=_headers(handle))


def _stream_end(event: AgentEvent, error: dict[str, Any]) -> str | OpenAIError:
    """How a stream ends: its finish reason, or the error a failed run ends with."""
    status = RunStatus(event.data.get("status", RunStatus.failed))
    if status is RunStatus.completed:
        return "stop"
    error_status = error.get("status")
    if status in CUT_SHORT and error_status is None:
        return "length"
    return _failure(status, error_status, error.get("message"))


async def stream(
    request: Request,
    runtime: Runtime,
    body: ChatCompletionRequest,
    context: RequestContext,
    slot: Slot,
) -> StreamingResponse:
    handle, settings = await _start(request, runtime, body, context, slot)
    completion = Completion(AGENT_MODEL)

    async def chunks() -> AsyncIterator[str]:
        error: dict[str, Any] = {}
        try:
            yield completion.role()
            async for event in handle.events():
                if event.type is EventType.chunk:
                    yield completion.text(event.data["text"])
                elif event.type is EventType.error:
                    error = event.data
                elif event.type is EventType.agent_summary:
                    end = _stream_end(event, error)
                    if isinstance(end, OpenAIError):
                        # The client raises on it; no finish reason or [DONE] follows.
                        yield completion.error(end.message, end.status, end.code)
                        return
                    yield completion.finish(end)
                    if body.include_usage:
                        yield completion.usage(_usage(event.data.get("usage", {})))
            yield DONE
        finally:
            # Reached early only when the client went away.
            if settings.agent_cancel_on_disconnect:
                handle.cancel()

    headers = STREAM_HEADERS | _headers(handle)
    return StreamingResponse(chunks(), media_type="text/event-stream", headers=headers)
