"""ASGI middleware: per request one SERVER span and the `http.server.request.duration`
metric, both named by the route template (`/v1/files/{file_id}`), never the raw path, so
labels stay a bounded set.

One span per request: when FastAPI's own telemetry (it traces as soon as a tracer provider is
configured) or an OpenTelemetry instrumentation (e.g. under `opentelemetry-instrument`) already
opened the request's SERVER span further out, that span is the request's, and this middleware
adds the route to it — and masks query values, which may be user text — instead of opening a
second one."""

from __future__ import annotations

import time
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any
from urllib.parse import parse_qsl, urlencode

from opentelemetry import trace
from opentelemetry.trace import Span, SpanKind, Status, StatusCode

from agentur.observability import metrics
from agentur.observability.tracing import tracer

Scope = dict[str, Any]
UNMATCHED = "unmatched"


def route_template(scope: Scope) -> str:
    """The matched route's full path template. Starlette records the route in the scope; a
    route of an included FastAPI router knows only its own path (without the `/v1` prefix),
    so the effective route FastAPI resolved — which carries the full path — wins."""
    effective = (scope.get("fastapi") or {}).get("effective_route_context")
    route = effective if getattr(effective, "path", None) else scope.get("route")
    return getattr(route, "path", None) or UNMATCHED


def instrumentation_span() -> Span | None:
    """The request's SERVER span when an instrumentation outside this app opened one."""
    current = trace.get_current_span()
    if current.is_recording() and getattr(current, "kind", None) is SpanKind.SERVER:
        return current
    return None


def masked_query(query: bytes) -> str:
    """The query's parameter names with every value masked."""
    names = [name for name, _ in parse_qsl(query.decode("latin-1"), keep_blank_values=True)]
    return urlencode([(name, "REDACTED") for name in names])


@contextmanager
def server_span(scope: Scope) -> Iterator[tuple[Span, bool]]:
    """(the request's SERVER span, whether this middleware owns it)."""
    query = scope.get("query_string")
    outer = instrumentation_span()
    if outer is not None:
        if query:
            outer.set_attribute("url.query", masked_query(query))
        yield outer, False
        return
    method = scope["method"]
    attributes = {
        "http.request.method": method,
        "url.scheme": scope.get("scheme", "http"),
        "url.path": scope.get("path", ""),
    }
    if query:
        attributes["url.query"] = masked_query(query)
    with tracer.start_as_current_span(method, kind=SpanKind.SERVER, attributes=attributes) as span:
        yield span, True


class ObservabilityMiddleware:
    def __init__(self, app: Any) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Any, send: Any) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        method = scope["method"]
        status = 500  # stays when the app raises before it answers
        started = time.perf_counter()

        async def observe_send(message: dict[str, Any]) -> None:
            nonlocal status
            if message["type"] == "http.response.start":
                status = message["status"]
            await send(message)

        with server_span(scope) as (span, owned):
            try:
                await self.app(scope, receive, observe_send)
            finally:
                route = route_template(scope)
                metrics.http_server_request_duration.labels(method, route, str(status)).observe(
                    time.perf_counter() - started
                )
                if span.is_recording():  # an outer span may have ended with the response
                    span.set_attribute("http.route", route)
                    if owned:
                        span.update_name(f"{method} {route}")
                        span.set_attribute("http.response.status_code", status)
                        if status >= 500:
                            span.set_attribute("error.type", str(status))
                            span.set_status(Status(StatusCode.ERROR))
