"""OpenTelemetry tracing: off (the API's no-op tracer, no cost) unless the standard
`OTEL_EXPORTER_OTLP_ENDPOINT` / `OTEL_EXPORTER_OTLP_TRACES_ENDPOINT` is set; then the SDK (the
optional extra `otel`) exports spans over OTLP/HTTP, configured by the standard `OTEL_*`
variables (service name, headers, sampler, ...).

Span attributes follow the GenAI semantic conventions and carry names, counts and ids only:
never prompt text, answers, tool arguments or results."""

from __future__ import annotations

import logging
import os

from opentelemetry import trace

logger = logging.getLogger(__name__)

tracer = trace.get_tracer("agentur")

ENDPOINT_VARIABLES = ("OTEL_EXPORTER_OTLP_ENDPOINT", "OTEL_EXPORTER_OTLP_TRACES_ENDPOINT")
_configured = False


def configure_tracing() -> bool:
    """Installs the SDK with the OTLP exporter once per process when an endpoint is set;
    returns whether spans are exported. Without the `otel` extra it logs and stays off."""
    global _configured
    if _configured:
        return True
    if not any(os.environ.get(name) for name in ENDPOINT_VARIABLES):
        return False
    try:
        from opentelemetry.exporter.otlp.proto.http.trace_exporter import OTLPSpanExporter
        from opentelemetry.sdk.resources import Resource
        from opentelemetry.sdk.trace import TracerProvider
        from opentelemetry.sdk.trace.export import BatchSpanProcessor
    except ImportError:
        logger.warning(
            "OTEL_EXPORTER_OTLP_ENDPOINT is set but the OpenTelemetry SDK is missing; "
            "install agentur[otel] to export traces"
        )
        return False
    # OTEL_SERVICE_NAME / OTEL_RESOURCE_ATTRIBUTES still win over this default.
    resource = Resource.create({"service.name": os.environ.get("OTEL_SERVICE_NAME", "agentur")})
    provider = TracerProvider(resource=resource)
    provider.add_span_processor(BatchSpanProcessor(OTLPSpanExporter()))
    trace.set_tracer_provider(provider)
    _configured = True
    return True
