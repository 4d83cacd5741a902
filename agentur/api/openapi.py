"""The OpenAPI document: FastAPI's, plus the problem schema and the limits this server runs with.

Some limits are settings (longest name, largest read window, largest search), so the static
models carry only a hard ceiling and a marker (`LIMIT_MARKER`: the setting's name); the document
states the configured value, so a client (or schemathesis) sees exactly what the server enforces.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from fastapi import FastAPI
from fastapi.openapi.utils import get_openapi

from agentur.api.problems import Problem

LIMIT_MARKER = "x-agentur-limit"


def limit_from_setting(name: str) -> dict[str, Any]:
    """`json_schema_extra` for a field whose upper bound is the setting `name`."""
    return {LIMIT_MARKER: name}


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


def install_openapi(app: FastAPI, limits: Callable[[], Mapping[str, int]]) -> None:
    """Serve FastAPI's document with `Problem` among the schemas and the configured limits."""

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
            app.openapi_schema = schema
        return app.openapi_schema

    app.openapi = openapi  # type: ignore[method-assign]
