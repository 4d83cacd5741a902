"""JSON → UDM: object keys become headings (their path the heading path), lists of flat
objects become tables, other values become `key: value` text blocks."""

from __future__ import annotations

import json
from typing import Any

from agentur.knowledge.extract.builder import DocumentBuilder
from agentur.knowledge.udm import ContentType, Document

MAX_DEPTH = 6  # deeper values are rendered as JSON text


def extract_json(text: str) -> Document:
    builder = DocumentBuilder("json")
    _value(builder, json.loads(text), 1)
    return builder.build()


def _is_scalar(value: Any) -> bool:
    return not isinstance(value, dict | list)


def _value(builder: DocumentBuilder, value: Any, level: int) -> None:
    if isinstance(value, dict) and level <= MAX_DEPTH:
        scalars = [f"{k}: {v}" for k, v in value.items() if _is_scalar(v)]
        if scalars:
            builder.block(ContentType.text, "\n".join(scalars))
        for key, child in value.items():
            if not _is_scalar(child):
                builder.heading(str(key), level)
                _value(builder, child, level + 1)
    elif (
        isinstance(value, list)
        and value
        and all(
            isinstance(item, dict) and all(_is_scalar(v) for v in item.values()) for item in value
        )
    ):
        columns = list(dict.fromkeys(key for item in value for key in item))
        rows = [columns] + [[_cell(item.get(c)) for c in columns] for item in value]
        builder.table(rows)
    elif isinstance(value, list) and level <= MAX_DEPTH and all(_is_scalar(v) for v in value):
        builder.block(ContentType.list, "\n".join(f"- {_cell(v)}" for v in value))
    elif isinstance(value, list) and level <= MAX_DEPTH:
        for item in value:
            _value(builder, item, level)
    else:
        rendered = value if isinstance(value, str) else json.dumps(value, ensure_ascii=False)
        builder.block(ContentType.text, rendered)


def _cell(value: Any) -> str:
    return "" if value is None else str(value)
