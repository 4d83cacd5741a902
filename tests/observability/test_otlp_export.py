"""Tracing is off without an OTLP endpoint and exports over OTLP/HTTP with one. Each case runs
in a fresh interpreter: the global tracer provider can be set only once per process."""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest
from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import ExportTraceServiceRequest

from tests.serve_in_thread import serve_in_thread

ROOT = Path(__file__).resolve().parents[2]
SCRIPT = """
from opentelemetry import trace
from agentur.observability.gen_ai import gateway_call
from agentur.observability.tracing import configure_tracing
print(configure_tracing())
with gateway_call("openai", "gpt-test", "agent") as call:
    call.done(response_model="gpt-test-2025-01-01", input_tokens=12, output_tokens=3)
provider = trace.get_tracer_provider()
print(type(provider).__name__)
if hasattr(provider, "shutdown"):
    provider.shutdown()  # flushes the batch processor
"""


class Collector(ThreadingHTTPServer):
    received: list[tuple[str, bytes]]


class Handler(BaseHTTPRequestHandler):
    def do_POST(self) -> None:  # noqa: N802 - the http.server hook's name
        body = self.rfile.read(int(self.headers["Content-Length"]))
        self.server.received.append((self.path, body))  # type: ignore[attr-defined]
        self.send_response(200)
        self.send_header("Content-Type", "application/x-protobuf")
        self.end_headers()

    def log_message(self, *args: object) -> None:
        pass


@pytest.fixture
def collector() -> Iterator[Collector]:
    server = Collector(("127.0.0.1", 0), Handler)
    server.received = []
    with serve_in_thread(server):
        yield server


def run_script(**env: str) -> list[str]:
    clean = {k: v for k, v in os.environ.items() if not k.startswith("OTEL_")}
    done = subprocess.run(
        [sys.executable, "-c", SCRIPT],
        cwd=ROOT,
        env={**clean, "PYTHONPATH": str(ROOT), **env},
        capture_output=True,
        text=True,
        timeout=60,
        check=True,
    )
    return done.stdout.split()


def test_without_an_endpoint_tracing_stays_the_no_op_api() -> None:
    assert run_script() == ["False", "ProxyTracerProvider"]


def test_with_an_endpoint_spans_go_to_the_collector_over_otlp_http(collector: Collector) -> None:
    endpoint = f"http://127.0.0.1:{collector.server_address[1]}"
    output = run_script(OTEL_EXPORTER_OTLP_ENDPOINT=endpoint, OTEL_SERVICE_NAME="agentur-test")
    assert output == ["True", "TracerProvider"]
    ((path, body),) = collector.received
    assert path == "/v1/traces"
    request = ExportTraceServiceRequest.FromString(body)
    (resource_spans,) = request.resource_spans
    service = {a.key: a.value.string_value for a in resource_spans.resource.attributes}
    assert service["service.name"] == "agentur-test"
    (span,) = [s for scope in resource_spans.scope_spans for s in scope.spans]
    attributes = {a.key: a.value for a in span.attributes}
    assert span.name == "chat gpt-test"
    assert attributes["gen_ai.provider.name"].string_value == "openai"
    assert attributes["gen_ai.usage.input_tokens"].int_value == 12
