"""Fields whose upper bound is a setting (longest name, largest read window, largest search):
static models carry a hard ceiling and this marker; the OpenAPI document states the configured
value in its place (agentur/api/openapi.py), so a client sees exactly what the server enforces."""

from __future__ import annotations

from typing import Any

LIMIT_MARKER = "x-agentur-limit"


def limit_from_setting(name: str) -> dict[str, Any]:
    """`json_schema_extra` for a field whose upper bound is the setting `name`."""
    return {LIMIT_MARKER: name}
