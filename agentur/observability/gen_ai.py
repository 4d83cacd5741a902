"""Spans of the agent loop and the AI gateway after the OpenTelemetry GenAI semantic
conventions (`gen_ai.operation.name`, `gen_ai.provider.name`, `gen_ai.request.model`,
`gen_ai.response.model` / `.id` / `.finish_reasons`, `gen_ai.usage.*`), plus the matching
metrics. Only names, ids and counts go into attributes."""

from __future__ import annotations

import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass

from opentelemetry.trace import Span, SpanKind, Status, StatusCode

from agentur.observability import metrics
from agentur.observability.tracing import tracer

AGENT_NAME = "agentur"
# The conventions' well-known provider names where agentur's differ; others stay as they are.
PROVIDER_NAMES = {"google": "gcp.gemini", "mistral": "mistral_ai"}
# The gateway's operation types that are not chat calls, as the conventions name them.
OPERATION_NAMES = {
    "embedding": "embeddings",
    "image_generate": "generate_content",
    "speech_to_text": "generate_content",
    "text_to_speech": "generate_content",
}


def provider_name(provider: str) -> str:
    return PROVIDER_NAMES.get(provider, provider)


def operation_name(operation: str) -> str:
    return OPERATION_NAMES.get(operation, "chat")


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
def tool_span(tool: str, label: str, call_id: str, remote: bool) -> Iterator[Span]:
    """`label` is the bounded name (a connection's tool counts as its kind, e.g. `mcp`) for
    the span name and the metrics; the attribute keeps the tool's own name."""
    with tracer.start_as_current_span(
        f"execute_tool {label}",
        attributes={
            "gen_ai.operation.name": "execute_tool",
            "gen_ai.tool.name": tool,
            "gen_ai.tool.type": "extension" if remote else "function",
            "gen_ai.tool.call.id": call_id,
        },
    ) as span:
        yield span


def end_tool_call(span: Span, label: str, is_error: bool, seconds: float) -> None:
    outcome = "error" if is_error else "ok"
    metrics.tool_calls.labels(label, outcome).inc()
    metrics.tool_call_seconds.labels(label).observe(seconds)
    if is_error:
        span.set_status(Status(StatusCode.ERROR))


@dataclass
class GatewayCall:
    """One observed provider call; `done` records the answer, `failed` an error."""

    span: Span
    failed_with: str | None = None

    def done(
        self,
        *,
        response_model: str,
        input_tokens: int,
        output_tokens: int = 0,
        response_id: str | None = None,
        finish_reason: str | None = None,
    ) -> None:
        """`response_model` is the model the provider reports having answered with."""
        self.failed_with = None  # an earlier try of this model failed, this one answered
        self.span.set_attribute("gen_ai.response.model", response_model)
        if response_id:
            self.span.set_attribute("gen_ai.response.id", response_id)
        if finish_reason:
            self.span.set_attribute("gen_ai.response.finish_reasons", [finish_reason])
        self.span.set_attribute("gen_ai.usage.input_tokens", input_tokens)
        self.span.set_attribute("gen_ai.usage.output_tokens", output_tokens)

    def failed(self, error: BaseException) -> None:
        self.failed_with = type(error).__name__


@contextmanager
def gateway_call(provider: str, model: str, operation: str) -> Iterator[GatewayCall]:
    """A CLIENT span (not made current: nothing runs beneath it, and stream generators may
    resume in another context) and the duration metric for one model tried."""
    name = operation_name(operation)
    span = tracer.start_span(
        f"{name} {model}",
        kind=SpanKind.CLIENT,
        attributes={
            "gen_ai.operation.name": name,
            "gen_ai.provider.name": provider_name(provider),
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
        metrics.gen_ai_client_operation_duration.labels(
            name, provider_name(provider), model, call.failed_with or ""
        ).observe(time.perf_counter() - started)
        if call.failed_with is not None:
            span.set_attribute("error.type", call.failed_with)
            span.set_status(Status(StatusCode.ERROR))
        span.end()


def charged(provider: str, model: str, operation: str, usage: tuple[int, int], chf: float) -> None:
    """The billed tokens and cost of one call (every charge, embeddings included)."""
    input_tokens, output_tokens = usage
    name, provider = operation_name(operation), provider_name(provider)
    tokens = metrics.gen_ai_client_token_usage
    tokens.labels(name, provider, model, "input").observe(input_tokens)
    if name != "embeddings":  # they have no output tokens
        tokens.labels(name, provider, model, "output").observe(output_tokens)
    metrics.gateway_cost_chf.labels(provider, model, operation).inc(chf)
