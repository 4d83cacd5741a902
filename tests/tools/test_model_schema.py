"""The argument schema a model is shown (compact tool definitions): what a model
needs to form a call survives, what only costs tokens does not."""

from __future__ import annotations

from enum import StrEnum

from pydantic import BaseModel, Field

from agentur.tools.model_schema import model_schema
from agentur.tools.registry import ToolRegistry


class Mode(StrEnum):
    create = "create"
    append = "append"


class Arguments(BaseModel):
    title: str = Field(min_length=1, max_length=200, description="The note's title.")
    mode: Mode = Mode.create
    folder_id: str | None = Field(default=None, description="Target folder.")
    tags: list[str] | None = None
    limit: int = Field(default=50, ge=1, le=500)
    offset: int = Field(default=0, ge=0)
    exact: bool = False
    weight: float = 0.5


def test_schema_keeps_what_a_call_needs_and_drops_the_rest() -> None:
    assert model_schema(Arguments.model_json_schema()) == {
        "properties": {
            # A property named `title` is kept; only the schema keyword goes.
            "title": {"type": "string", "description": "The note's title."},
            "mode": {"enum": ["create", "append"], "type": "string", "default": "create"},
            "folder_id": {"type": "string", "description": "Target folder."},
            "tags": {"items": {"type": "string"}, "type": "array"},
            "limit": {"default": 50, "minimum": 1, "maximum": 500, "type": "integer"},
            "offset": {"minimum": 0, "type": "integer"},
            "exact": {"type": "boolean"},
            "weight": {"default": 0.5, "type": "number"},
        },
        "required": ["title"],
        "type": "object",
    }


def test_every_registered_tool_schema_is_compact_and_self_contained() -> None:
    for tool in ToolRegistry.discover().all():
        text = str(model_schema(tool.json_schema()))
        assert "$ref" not in text and "$defs" not in text, tool.name
        assert "'title'" not in text or "'title': {" in text, tool.name
        assert "{'type': 'null'}" not in text, tool.name
