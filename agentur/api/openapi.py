"""The OpenAPI document: FastAPI's, plus the problem schema and the limits this server runs with.

Some limits are settings (longest name, largest read window, largest search), so the static
models carry only a hard ceiling and a marker (`agentur.setting_limits`: the setting's name); the
document states the configured value, so a client (or schemathesis) sees exactly what the server
enforces.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

from fastapi import FastAPI
from fastapi.dependencies.models import Dependant
from fastapi.openapi.utils import get_openapi
from fastapi.routing import APIRoute, iter_route_contexts
from starlette.routing import BaseRoute

from agentur.api.problems import HTTP_METHODS, STATUS_MEANINGS, Problem, problem_responses
from agentur.setting_limits import LIMIT_MARKER

# Optional headers every operation with a request context reads (`get_request_context` takes
# them from the request itself, so FastAPI does not parse them per request; the document
# lists them).
CONTEXT_HEADERS = (
    "x-feature-instance",
    "x-user-timezone",
    "x-require-neutralization",
    "accept-language",
)


def _apply_limit(schema: dict[str, Any], value: int) -> None:
    kind = schema.get("type")
    if kind == "string":
        schema["maxLength"] = min(value, schema.get("maxLength", value))
    elif kind == "integer":
        schema["maximum"] = min(value, schema.get("maximum", value))
    for option in schema.get("anyOf", ()):
        _apply_limit(option, value)


def _apply_limits(node: Any, limits: Mapping[str, int]) -> None:
    if isinstance(node, dict):
        setting = node.get(LIMIT_MARKER)
        if setting is not None:
            _apply_limit(node, limits[setting])
            del node[LIMIT_MARKER]
        for value in node.values():
            _apply_limits(value, limits)
    elif isinstance(node, list):
        for value in node:
            _apply_limits(value, limits)


def _add_context_headers(
    schema: dict[str, Any], routes: Sequence[BaseRoute], context_dependency: Callable[..., Any]
) -> None:
    """Each operation whose dependencies include `context_dependency` lists the context
    headers, as FastAPI would for declared header parameters."""
    for route in iter_route_contexts(routes):
        if not isinstance(route.original_route, APIRoute) or not route.include_in_schema:
            continue
        if not _depends_on(route.dependant, context_dependency):
            continue
        for method in route.methods or ():
            operation = schema["paths"][route.path_format][method.lower()]
            operation.setdefault("parameters", []).extend(
                {
                    "name": name,
                    "in": "header",
                    "required": False,
                    "schema": {
                        "anyOf": [{"type": "string"}, {"type": "null"}],
                        "title": "-".join(part.capitalize() for part in name.split("-")),
                    },
                }
                for name in CONTEXT_HEADERS
            )


def _depends_on(dependant: Dependant, dependency: Callable[..., Any]) -> bool:
    return any(
        sub.call is dependency or _depends_on(sub, dependency) for sub in dependant.dependencies
    )


RETRY_AFTER_HEADER = {
    "Retry-After": {
        "description": "Seconds to wait before sending the request again.",
        "schema": {"type": "integer"},
    }
}


def _add_server_limits(schema: dict[str, Any], body_limit: Callable[[str], str]) -> None:
    """What any operation can answer besides its own statuses: 413 where it takes a body
    (stating that route's configured limit, `body_limit(path)`), 503 everywhere (a saturated
    server), both problem+json, and `Retry-After` with every 429 and 503."""
    for path, operations in schema["paths"].items():
        for method, operation in operations.items():
            if method not in HTTP_METHODS:
                continue
            responses = operation.setdefault("responses", {})
            if "requestBody" in operation:
                responses["413"] = problem_responses(413)[413] | {
                    "description": f"{STATUS_MEANINGS[413]} Here: {body_limit(path)}."
                }
            responses.setdefault("503", problem_responses(503)[503])
            for status in ("429", "503"):
                if status in responses:
                    responses[status]["headers"] = RETRY_AFTER_HEADER


def install_openapi(
    app: FastAPI,
    limits: Callable[[], Mapping[str, int]],
    context_dependency: Callable[..., Any],
    body_limit: Callable[[str], str],
) -> None:
    """Serve FastAPI's document with `Problem` among the schemas, the configured limits (of
    fields and of request bodies, `body_limit(path)`), 503 on every operation, and the context
    headers on every operation that depends on `context_dependency`."""

    def openapi() -> dict[str, Any]:
        if app.openapi_schema is None:
            schema = get_openapi(
                title=app.title, version=app.version, description=app.description, routes=app.routes
            )
            schemas = schema.setdefault("components", {}).setdefault("schemas", {})
            problem = Problem.model_json_schema(ref_template="#/components/schemas/{model}")
            schemas.update(problem.pop("$defs", {}))
            schemas["Problem"] = problem
            _apply_limits(schema, limits())
            _add_server_limits(schema, body_limit)
            _add_context_headers(schema, app.routes, context_dependency)
            app.openapi_schema = schema
        return app.openapi_schema

    app.openapi = openapi  # type: ignore[method-assign]
