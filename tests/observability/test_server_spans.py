"""One SERVER span per HTTP request — also when FastAPI's own OpenTelemetry instrumentation
runs as well — and the GenAI attributes of the model call beneath it (the provider's reported
model and response id, finish reasons, usage), collected with the SDK's in-memory exporter."""

from __future__ import annotations

from collections.abc import Iterator

import httpx
import pytest
from fastapi import FastAPI
from opentelemetry import trace
from opentelemetry.instrumentation.fastapi import FastAPIInstrumentor
from opentelemetry.sdk.trace import ReadableSpan
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter

from agentur.ai.model_spec import Capability, ModelSpec
from agentur.ai.providers.openai_compatible import OpenAICompatibleProvider
from agentur.ai.service import AiService
from agentur.ai.settings import AiSettings
from agentur.api.app import create_app
from agentur.runtime import Runtime
from tests.ai.wire_servers import WireServer, openai_stream, openai_text
from tests.conftest import Tenants

SNAPSHOT = "wire-model-2025-06-01"  # what the provider reports having answered with


def server_spans(finished: list[ReadableSpan]) -> list[ReadableSpan]:
    return [s for s in finished if s.kind is trace.SpanKind.SERVER]


@pytest.fixture
def wire() -> Iterator[WireServer]:
    with WireServer("openai", "/v1") as server:
        yield server


async def test_one_server_span_per_request_and_the_provider_reported_genai_attributes(
    runtime: Runtime,
    client: httpx.AsyncClient,
    tenants: Tenants,
    wire: WireServer,
    spans: InMemorySpanExporter,
) -> None:
    spec = ModelSpec(
        provider="openai_compatible",
        name="wire-model",
        capabilities=frozenset({Capability.tools, Capability.streaming}),
        input_price_usd_per_mtok=1.0,
        output_price_usd_per_mtok=2.0,
    )
    runtime.ai = AiService(
        [OpenAICompatibleProvider(base_url=wire.base_url, models=[spec])], settings=AiSettings()
    )
    wire.enqueue(
        openai_text("Bern.", model=SNAPSHOT, input_tokens=31, output_tokens=2),
        openai_stream("Be", "rn.", model=SNAPSHOT, finish_reason="length"),
    )
    member = await tenants.member()
    body = {"model": "openai_compatible:wire-model", "messages": [{"role": "user", "content": "?"}]}
    try:
        plain = await client.post("/openai/v1/chat/completions", json=body, headers=member.headers)
        streamed = await client.post(
            "/openai/v1/chat/completions", json={**body, "stream": True}, headers=member.headers
        )
    finally:
        await runtime.ai.aclose()
    assert plain.status_code == streamed.status_code == 200, plain.text

    finished = list(spans.get_finished_spans())
    requests = server_spans(finished)
    assert [s.name for s in requests] == ["POST /openai/v1/chat/completions"] * 2
    for request in requests:
        assert request.attributes["http.route"] == "/openai/v1/chat/completions"
        assert request.attributes["http.response.status_code"] == 200
        assert request.attributes["http.request.method"] == "POST"
    calls = [s for s in finished if s.kind is trace.SpanKind.CLIENT]
    assert [s.name for s in calls] == ["chat wire-model"] * 2
    for call, request in zip(calls, requests, strict=True):
        assert call.context.trace_id == request.context.trace_id  # beneath its request
        assert call.attributes["gen_ai.request.model"] == "wire-model"
        assert call.attributes["gen_ai.response.model"] == SNAPSHOT
        assert call.attributes["gen_ai.response.id"] == "chatcmpl-wire"
        assert call.attributes["gen_ai.provider.name"] == "openai_compatible"
    assert calls[0].attributes["gen_ai.response.finish_reasons"] == ("stop",)
    assert calls[1].attributes["gen_ai.response.finish_reasons"] == ("length",)
    assert calls[0].attributes["gen_ai.usage.input_tokens"] == 31
    assert calls[0].attributes["gen_ai.usage.output_tokens"] == 2


@pytest.fixture
def instrumented(runtime: Runtime) -> Iterator[FastAPI]:
    """An app with FastAPI's own OpenTelemetry instrumentation, as `opentelemetry-instrument`
    or an operator's code adds it."""
    app = create_app(runtime=runtime)
    FastAPIInstrumentor.instrument_app(app, tracer_provider=trace.get_tracer_provider())
    yield app
    FastAPIInstrumentor.uninstrument_app(app)


async def test_with_fastapis_instrumentation_a_request_still_has_one_server_span(
    instrumented: FastAPI, tenants: Tenants, spans: InMemorySpanExporter
) -> None:
    member = await tenants.member()
    transport = httpx.ASGITransport(app=instrumented)
    async with httpx.AsyncClient(transport=transport, base_url="http://agentur.test") as http:
        me = await http.get("/v1/me", headers=member.headers)
        missing = await http.get("/v1/files/no-such-file", headers=member.headers)
    assert (me.status_code, missing.status_code) == (200, 404)

    requests = server_spans(list(spans.get_finished_spans()))
    assert len(requests) == 2  # one per request, not two
    assert [s.attributes["http.route"] for s in requests] == ["/v1/me", "/v1/files/{file_id}"]
    # The instrumentation's span, in the attribute names its version emits by default.
    statuses = [
        s.attributes.get("http.response.status_code", s.attributes.get("http.status_code"))
        for s in requests
    ]
    assert statuses == [200, 404]


async def test_query_values_stay_out_of_the_server_span(
    client: httpx.AsyncClient, tenants: Tenants, spans: InMemorySpanExporter
) -> None:
    member = await tenants.member()
    listed = await client.get("/v1/files?search=Hans+Muster&limit=5", headers=member.headers)
    assert listed.status_code in (200, 422), listed.text

    (request,) = server_spans(list(spans.get_finished_spans()))
    assert request.attributes["url.query"] == "search=REDACTED&limit=REDACTED"
    assert not any("Hans" in str(value) for value in request.attributes.values())
