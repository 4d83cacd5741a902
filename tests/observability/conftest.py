"""The SDK's in-memory span exporter behind the global tracer provider, for every span test.

The global provider can be set once per process, so one exporter serves all span tests."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from opentelemetry import trace
from opentelemetry.sdk.trace import ReadableSpan, TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter

EXPORTER = InMemorySpanExporter()


@pytest.fixture
def spans() -> Iterator[InMemorySpanExporter]:
    if not isinstance(trace.get_tracer_provider(), TracerProvider):
        provider = TracerProvider()
        provider.add_span_processor(SimpleSpanProcessor(EXPORTER))
        trace.set_tracer_provider(provider)
    EXPORTER.clear()
    yield EXPORTER
    EXPORTER.clear()


def children(parent: ReadableSpan, every: list[ReadableSpan]) -> list[ReadableSpan]:
    return [s for s in every if s.parent is not None and s.parent.span_id == parent.context.span_id]
