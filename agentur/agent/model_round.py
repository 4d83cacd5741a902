"""One model round: choose the model, summarize when the context grows, check the budget,
stream the call (operation AGENT) and account for it."""

from __future__ import annotations

import logging
import time
from collections.abc import Sequence
from dataclasses import replace
from typing import NoReturn

from agentur.agent.dependencies import RunStatus
from agentur.agent.run_state import RunState, StopRun
from agentur.agent.summarize_history import summarize_history
from agentur.agent.trace import TraceKind
from agentur.ai.billing.pricing import estimate_prompt_tokens
from agentur.ai.messages import (
    AiRequest,
    AiResponse,
    CallOptions,
    Message,
    StreamDone,
    TextDelta,
    ToolDefinition,
)
from agentur.ai.model_spec import ModelSpec
from agentur.ai.operation_types import OperationType
from agentur.ai.providers.base import ProviderError
from agentur.ai.stream_error import StreamError
from agentur.errors import AgenturError
from agentur.tool_loop.events import AgentEvent, EventType

logger = logging.getLogger(__name__)

OUTPUT_ROOM_TOKENS = 1_024


def spec_for(run: RunState, model_id: str) -> ModelSpec | None:
    for spec in run.deps.ai.models():
        if spec.id == model_id:
            return spec
    return None


async def model_round(
    run: RunState, pinned: Message, definitions: Sequence[ToolDefinition], knowledge: str
) -> AiResponse:
    deps, settings = run.deps, run.deps.settings
    messages = run.conversation.messages(knowledge)
    request = AiRequest(
        operation=OperationType.agent,
        messages=tuple(messages),
        tools=tuple(definitions),
        options=CallOptions(temperature=run.config.temperature),
        workflow_id=run.prepared.workflow_id,
    )
    try:
        estimate = estimate_prompt_tokens(request)
        share = settings.agent_summarize_at_share
        if estimate > share * _smallest_usable_window(run) and await _too_long_for_first(
            run, request, estimate
        ):
            await summarize(run, pinned)
            messages = run.conversation.messages(knowledge)
            request = replace(request, messages=tuple(messages))
            estimate = estimate_prompt_tokens(request)
        model = (await deps.ai.candidates(request, run.context, prompt_tokens=estimate))[0]
        plan = run.budget.plan_call(model, estimate)
        if not plan.allowed:
            raise StopRun(RunStatus.budget_exceeded, plan.reason)
        capped = replace(request.options, max_output_tokens=plan.max_output_tokens)
        request = replace(request, options=capped)
        response = await _stream(run, request)
    except StopRun:
        raise
    except (AgenturError, ProviderError) as error:
        _raise_model_failure(run, error)
    cost = run.budget.record(response, spec_for(run, response.model))
    if response.model not in run.models:
        run.models.append(response.model)
    run.trace.add(
        TraceKind.model_call,
        {
            "model": response.model,
            "input_tokens": response.usage.input_tokens,
            "output_tokens": response.usage.output_tokens,
            "cached_tokens": response.usage.cached_tokens,
            "cost_chf": cost,
            "latency_ms": round(response.latency_ms, 3),
            "finish_reason": response.finish_reason,
            "max_output_tokens": request.options.max_output_tokens,
            "tools_offered": [d.name for d in definitions],
            "tool_calls": [call.name for call in response.tool_calls],
        },
        round_index=run.rounds,
        duration_ms=response.latency_ms,
    )
    return response


def _usable_window(spec: ModelSpec) -> int:
    # The window less the room the answer needs (what the selector reserves, too).
    return spec.context_window - min(spec.max_output_tokens, OUTPUT_ROOM_TOKENS)


def _smallest_usable_window(run: RunState) -> int:
    """A prompt below the share of every model's window cannot need a summary, whichever
    model is chosen — so the common round skips a second model selection."""
    return min((_usable_window(spec) for spec in run.deps.ai.models()), default=0)


async def _too_long_for_first(run: RunState, request: AiRequest, estimate: int) -> bool:
    # Ranked without the prompt size: an oversized history must be summarized, not
    # answered with "no model fits".
    first = (await run.deps.ai.candidates(request, run.context, prompt_tokens=0))[0]
    return estimate > run.deps.settings.agent_summarize_at_share * _usable_window(first)


def _raise_model_failure(run: RunState, error: Exception) -> NoReturn:
    detail = getattr(error, "detail", None) or str(error)
    # A gateway error's own status; a provider's failure is a bad gateway (502).
    status = error.status_code if isinstance(error, AgenturError) else 502
    run.emit(AgentEvent(EventType.error, {"message": detail, "status": status}))
    if status == 402:  # the gateway's tenant budget preflight
        raise StopRun(RunStatus.budget_exceeded, detail, status) from error
    raise StopRun(RunStatus.failed, f"the model call failed: {detail}", status) from error


async def _stream(run: RunState, request: AiRequest) -> AiResponse:
    response: AiResponse | None = None
    async for event in run.deps.ai.stream(request, run.context):
        if isinstance(event, TextDelta):
            if event.text:
                run.emit(AgentEvent(EventType.chunk, {"text": event.text, "round": run.rounds}))
        elif isinstance(event, StreamDone):
            response = event.response
        elif isinstance(event, StreamError):
            # The provider broke after text reached the user; the text so far is kept.
            raise ProviderError(event.message, provider=event.provider)
    if response is None:
        raise ProviderError("the model stream ended without a response", provider="gateway")
    return response


async def summarize(run: RunState, pinned: Message) -> None:
    settings = run.deps.settings
    started = time.perf_counter()
    try:
        result = await summarize_history(
            run.deps.ai,
            run.context,
            turns=run.conversation.turns,
            pinned=pinned,
            previous_summary=run.conversation.summary,
            keep_recent=settings.agent_keep_recent_turns,
            max_output_tokens=settings.agent_summary_max_output_tokens,
            workflow_id=run.prepared.workflow_id,
        )
    except (AgenturError, ProviderError) as error:
        # The round still runs with the full history; the model call may yet fit.
        logger.warning("summarization failed in run %s: %r", run.prepared.run_id, error)
        run.trace.add(
            TraceKind.hook_failure, {"hook": "summary", "error": str(error)}, round_index=run.rounds
        )
        return
    if result is None:
        return
    cost = run.budget.record(result.response, spec_for(run, result.response.model))
    run.conversation.summary = result.summary
    run.conversation.turns = result.kept
    run.trace.add(
        TraceKind.summary,
        {
            "model": result.response.model,
            "summarized_messages": result.summarized_messages,
            "kept_messages": len(result.kept),
            "input_tokens": result.response.usage.input_tokens,
            "output_tokens": result.response.usage.output_tokens,
            "cost_chf": cost,
        },
        round_index=run.rounds,
        duration_ms=(time.perf_counter() - started) * 1000,
    )
