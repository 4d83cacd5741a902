"""ASGI middleware: per request one SERVER span and the request metrics, both named by the
route template (`/v1/files/{file_id}`), never the raw path, so labels stay a bounded set."""

from __future__ import annotations

import time
from typing import Any

from opentelemetry.trace import SpanKind, Status, StatusCode

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

        with tracer.start_as_current_span(
            method, kind=SpanKind.SERVER, attributes={"http.request.method": method}
        ) as span:
            try:
                await self.app(scope, receive, observe_send)
            finally:
                route = route_template(scope)
                metrics.http_requests.labels(method, route, str(status)).inc()
                metrics.http_request_seconds.labels(method, route).observe(
                    time.perf_counter() - started
                )
                if span.is_recording():
                    span.update_name(f"{method} {route}")
                    span.set_attribute("http.route", route)
                    span.set_attribute("http.response.status_code", status)
                    if status >= 500:
                        span.set_status(Status(StatusCode.ERROR))
