"""Spans of the agent loop and the AI gateway after the OpenTelemetry GenAI semantic
conventions (`gen_ai.operation.name`, `gen_ai.provider.name`, `gen_ai.request.model`,
`gen_ai.usage.*`), plus the matching metrics. Only names, ids and counts go into attributes."""

from __future__ import annotations

import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass

from opentelemetry.trace import Span, SpanKind, Status, StatusCode

from agentur.observability import metrics
from agentur.observability.tracing import tracer

AGENT_NAME = "agentur"


@contextmanager
def agent_run_span(run_id: str) -> Iterator[Span]:
    """The span of one agent run; the caller adds the final status with `end_agent_run`."""
    with tracer.start_as_current_span(
        f"invoke_agent {AGENT_NAME}",
        kind=SpanKind.INTERNAL,
        attributes={
            "gen_ai.operation.name": "invoke_agent",
            "gen_ai.agent.name": AGENT_NAME,
            "gen_ai.agent.id": run_id,
        },
    ) as span:
        yield span


def end_agent_run(span: Span, status: str, rounds: int, seconds: float) -> None:
    metrics.agent_runs.labels(status).inc()
    metrics.agent_rounds.inc(rounds)
    metrics.agent_run_seconds.labels(status).observe(seconds)
    span.set_attribute("agentur.run.status", status)
    span.set_attribute("agentur.run.rounds", rounds)
    if status == "failed":
        span.set_status(Status(StatusCode.ERROR))


def round_span(index: int):  # noqa: ANN201 - the tracer's context manager
    return tracer.start_as_current_span("round", attributes={"agentur.round": index})


@contextmanager
def tool_span(tool: str, call_id: str) -> Iterator[Span]:
    with tracer.start_as_current_span(
        f"execute_tool {tool}",
        attributes={
            "gen_ai.operation.name": "execute_tool",
            "gen_ai.tool.name": tool,
            "gen_ai.tool.call.id": call_id,
        },
    ) as span:
        yield span


def end_tool_call(span: Span, tool: str, is_error: bool, seconds: float) -> None:
    outcome = "error" if is_error else "ok"
    metrics.tool_calls.labels(tool, outcome).inc()
    metrics.tool_call_seconds.labels(tool).observe(seconds)
    if is_error:
        span.set_status(Status(StatusCode.ERROR))


@dataclass
class GatewayCall:
    """One observed provider call; `done` records usage, `failed` an error."""

    span: Span
    failed_with: str | None = None

    def done(self, model: str, input_tokens: int, output_tokens: int) -> None:
        self.failed_with = None  # an earlier try of this model failed, this one answered
        self.span.set_attribute("gen_ai.response.model", model)
        self.span.set_attribute("gen_ai.usage.input_tokens", input_tokens)
        self.span.set_attribute("gen_ai.usage.output_tokens", output_tokens)

    def failed(self, error: BaseException) -> None:
        self.failed_with = type(error).__name__


@contextmanager
def gateway_call(provider: str, model: str, operation: str) -> Iterator[GatewayCall]:
    """A CLIENT span (not made current: nothing runs beneath it, and stream generators may
    resume in another context) and the call metrics for one model tried."""
    span = tracer.start_span(
        f"chat {model}",
        kind=SpanKind.CLIENT,
        attributes={
            "gen_ai.operation.name": "chat",
            "gen_ai.system": provider,
            "gen_ai.provider.name": provider,
            "gen_ai.request.model": model,
            "agentur.operation": operation,
        },
    )
    call = GatewayCall(span)
    started = time.perf_counter()
    try:
        yield call
    except BaseException as error:
        call.failed(error)
        raise
    finally:
        outcome = "ok" if call.failed_with is None else "error"
        metrics.gateway_calls.labels(provider, model, operation, outcome).inc()
        metrics.gateway_call_seconds.labels(provider, model, operation).observe(
            time.perf_counter() - started
        )
        if call.failed_with is not None:
            span.set_attribute("error.type", call.failed_with)
            span.set_status(Status(StatusCode.ERROR))
        span.end()


def charged(provider: str, model: str, operation: str, usage: tuple[int, int], chf: float) -> None:
    """The billed tokens and cost of one call (every charge, embeddings included)."""
    input_tokens, output_tokens = usage
    metrics.gateway_tokens.labels(provider, model, operation, "input").inc(input_tokens)
    metrics.gateway_tokens.labels(provider, model, operation, "output").inc(output_tokens)
    metrics.gateway_cost_chf.labels(provider, model, operation).inc(chf)
