"""`agentur-agent`: a full agent run as one chat completion. The last user message is the
prompt and the earlier messages its history; the run's tools act inside agentur, so only the
answer text reaches the client (tool events are never streamed as content)."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from typing import Any

from fastapi import Request

from agentur.agent.active_runs import AgentRunHandle
from agentur.agent.config import AgentConfig
from agentur.agent.events import EventType
from agentur.agent.prepare_run import prepare_run
from agentur.agent.settings import AgentSettings
from agentur.ai.messages import Usage
from agentur.api.backpressure.tenant_limits import Slot
from agentur.api.openai_compatible.errors import OpenAIError
from agentur.api.openai_compatible.schemas import ChatCompletionRequest
from agentur.api.openai_compatible.to_ai_request import to_messages
from agentur.api.openai_compatible.wire_format import DONE, Completion
from agentur.api.routes.agent_runs import MAX_PROMPT_CHARS, agent_run_state
from agentur.context import RequestContext
from agentur.runtime import Runtime

AGENT_MODEL = "agentur-agent"


def _usage(data: dict[str, Any]) -> Usage:
    return Usage(
        data.get("input_tokens", 0), data.get("output_tokens", 0), data.get("cached_tokens", 0)
    )


async def _start(
    request: Request,
    runtime: Runtime,
    body: ChatCompletionRequest,
    context: RequestContext,
    slot: Slot,
) -> tuple[AgentRunHandle, AgentSettings]:
    last = body.messages[-1]
    if last.role != "user" or not last.text.strip():
        raise OpenAIError(
            400, "agentur-agent needs a user message with text last", param="messages"
        )
    if len(last.text) > MAX_PROMPT_CHARS:
        raise OpenAIError(
            400, f"the prompt has more than {MAX_PROMPT_CHARS} characters", param="messages"
        )
    runs, settings = await agent_run_state(request, runtime)
    deps = runtime.agent_dependencies(settings)
    config = AgentConfig(temperature=body.temperature)
    prepared = await prepare_run(last.text, config, context, deps)
    # The client's conversation replaces the new workflow's (empty) history.
    prepared.history.extend(
        m for m in to_messages(body.messages[:-1]) if not m.tool_calls and m.role != "tool"
    )
    handle = runs.start(prepared, deps)
    slot.last_until(handle.task)  # the run's whole life, also past a client that went away
    return handle, settings


async def complete(
    request: Request,
    runtime: Runtime,
    body: ChatCompletionRequest,
    context: RequestContext,
    slot: Slot,
) -> dict[str, Any]:
    handle, settings = await _start(request, runtime, body, context, slot)
    try:
        result = await handle.result()
    except asyncio.CancelledError:  # the client went away
        if settings.agent_cancel_on_disconnect:
            handle.cancel()
        raise
    return Completion(AGENT_MODEL).whole(result.final_text, (), "stop", result.usage)


async def stream(
    request: Request,
    runtime: Runtime,
    body: ChatCompletionRequest,
    context: RequestContext,
    slot: Slot,
) -> AsyncIterator[str]:
    handle, settings = await _start(request, runtime, body, context, slot)
    completion = Completion(AGENT_MODEL)

    async def chunks() -> AsyncIterator[str]:
        try:
            yield completion.role()
            async for event in handle.events():
                if event.type is EventType.chunk:
                    yield completion.text(event.data["text"])
                elif event.type is EventType.error:
                    yield completion.error(str(event.data.get("message", "the run failed")))
                elif event.type is EventType.agent_summary:
                    yield completion.finish("stop")
                    if body.include_usage:
                        yield completion.usage(_usage(event.data.get("usage", {})))
            yield DONE
        finally:
            # Reached early only when the client went away.
            if settings.agent_cancel_on_disconnect:
                handle.cancel()

    return chunks()
