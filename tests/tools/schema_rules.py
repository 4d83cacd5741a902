"""The rules of the strictest common consumers of tool schemas, written down as checks.

OpenAI (function calling and Structured Outputs, "Supported schemas" in OpenAI's guide):
- the root is an object, not `anyOf`; names match `^[a-zA-Z0-9_-]{1,64}$`;
- types are string, number, integer, boolean, object, array, null, plus `enum`, `const` and
  `anyOf`; keywords beyond that subset are refused: `allOf`, `not`, `if`/`then`/`else`,
  `dependentRequired`, `dependentSchemas`, `patternProperties`, `unevaluatedProperties`,
  `unevaluatedItems`, `contains`, `minContains`, `maxContains`, `uniqueItems`;
- string `format` is one of date-time, time, date, duration, email, hostname, ipv4, ipv6, uuid;
- at most 5,000 object properties in all and 10 levels of nesting; at most 1,000 enum values in
  all; the names, enum and const values add up to at most 120,000 characters;
- every `$ref` points into the schema's own `$defs`.
Not checked: "every property required" and "additionalProperties: false" — they apply only to
a schema sent with `strict: true`, which agentur does not send (agentur/ai/providers/openai_chat).

llama.cpp (common/json-schema-to-grammar.cpp, which llama-server runs on every tool schema
before a request with tools):
- an integer bound is a real int64 that is not a sentinel: build 10434 takes INT64_MAX (and
  INT64_MIN) for "no bound" and then refuses an integer whose only bound was it ("At least one
  of min_value or max_value must be set"); a bound beyond 2**53 is no real limit either;
- a bounded integer gives its lower bound too (`minimum: 0` for offsets): a maximum alone
  compiles to a grammar for every negative number below it;
- `pattern` is anchored or plain (the converter refuses look-arounds and back-references).
"""

from __future__ import annotations

import json
import re
from typing import Any

OPENAI_TYPES = {"string", "number", "integer", "boolean", "object", "array", "null"}
OPENAI_REFUSED = {
    "allOf",
    "not",
    "if",
    "then",
    "else",
    "dependentRequired",
    "dependentSchemas",
    "patternProperties",
    "unevaluatedProperties",
    "unevaluatedItems",
    "contains",
    "minContains",
    "maxContains",
    "uniqueItems",
}
OPENAI_FORMATS = {
    "date-time",
    "time",
    "date",
    "duration",
    "email",
    "hostname",
    "ipv4",
    "ipv6",
    "uuid",
}
OPENAI_NAME = re.compile(r"^[a-zA-Z0-9_-]{1,64}$")
MAX_PROPERTIES, MAX_DEPTH, MAX_ENUM_VALUES, MAX_TEXT = 5_000, 10, 1_000, 120_000
INT64_MAX = 2**63 - 1
LARGEST_BOUND = 2**53
_UNSUPPORTED_PATTERN = re.compile(r"\(\?[=!<]|\\[1-9]")


def openai_problems(name: str, schema: dict[str, Any]) -> list[str]:
    problems: list[str] = []
    if not OPENAI_NAME.match(name):
        problems.append(f"name {name!r} does not match {OPENAI_NAME.pattern}")
    if schema.get("type") != "object" or "anyOf" in schema:
        problems.append("the root is not a plain object schema")
    counts = {"properties": 0, "enum": 0, "text": 0}
    definitions = set(schema.get("$defs", {}))

    def visit(node: Any, path: str, depth: int) -> None:
        if not isinstance(node, dict):
            return
        if depth > MAX_DEPTH:
            problems.append(f"{path}: nested deeper than {MAX_DEPTH} levels")
        for key in OPENAI_REFUSED & set(node):
            problems.append(f"{path}: keyword {key!r} is not supported")
        types = node.get("type")
        for kind in types if isinstance(types, list) else [types] if types else []:
            if kind not in OPENAI_TYPES:
                problems.append(f"{path}: type {kind!r} is not supported")
        if "format" in node and node["format"] not in OPENAI_FORMATS:
            problems.append(f"{path}: format {node['format']!r} is not supported")
        if "$ref" in node and node["$ref"].removeprefix("#/$defs/") not in definitions:
            problems.append(f"{path}: $ref {node['$ref']!r} does not point into $defs")
        if isinstance(node.get("enum"), list):
            counts["enum"] += len(node["enum"])
            counts["text"] += sum(len(str(value)) for value in node["enum"])
        if "const" in node:
            counts["text"] += len(str(node["const"]))
        properties = node.get("properties")
        if isinstance(properties, dict):
            counts["properties"] += len(properties)
            counts["text"] += sum(len(key) for key in properties)
            for key, child in properties.items():
                visit(child, f"{path}.{key}", depth + 1)
        for key in ("items", "additionalProperties"):
            visit(node.get(key), f"{path}.{key}", depth + 1)
        for key in ("anyOf", "oneOf", "prefixItems"):
            for index, child in enumerate(node.get(key) or []):
                visit(child, f"{path}.{key}[{index}]", depth)
        for key, child in (node.get("$defs") or {}).items():
            counts["text"] += len(key)
            visit(child, f"{path}.$defs.{key}", depth)

    visit(schema, name, 0)
    if counts["properties"] > MAX_PROPERTIES:
        problems.append(f"{counts['properties']} properties (at most {MAX_PROPERTIES})")
    if counts["enum"] > MAX_ENUM_VALUES:
        problems.append(f"{counts['enum']} enum values (at most {MAX_ENUM_VALUES})")
    if counts["text"] > MAX_TEXT:
        problems.append(f"{counts['text']} characters of names and values (at most {MAX_TEXT})")
    return problems


def llama_cpp_problems(name: str, schema: dict[str, Any]) -> list[str]:
    problems: list[str] = []

    def visit(node: Any, path: str) -> None:
        if isinstance(node, list):
            for index, item in enumerate(node):
                visit(item, f"{path}[{index}]")
            return
        if not isinstance(node, dict):
            return
        if node.get("type") in ("integer", "number"):
            bounds = {
                key: node[key]
                for key in ("minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum")
                if key in node
            }
            for key, value in bounds.items():
                if not isinstance(value, int | float) or abs(value) >= LARGEST_BOUND:
                    problems.append(f"{path}: {key} {value!r} is a sentinel, not a bound")
            has_lower = "minimum" in bounds or "exclusiveMinimum" in bounds
            has_upper = "maximum" in bounds or "exclusiveMaximum" in bounds
            if node.get("type") == "integer" and has_upper and not has_lower:
                problems.append(f"{path}: an upper bound without a lower one")
        pattern = node.get("pattern")
        if isinstance(pattern, str) and _UNSUPPORTED_PATTERN.search(pattern):
            problems.append(f"{path}: pattern {pattern!r} uses look-arounds or back-references")
        for key, child in node.items():
            if key not in ("enum", "const", "default", "examples"):
                visit(child, f"{path}.{key}")

    visit(schema, name)
    return problems


def wire_size(name: str, description: str, schema: dict[str, Any]) -> int:
    """Characters of one tool definition on the OpenAI wire (compact JSON)."""
    tool = {"name": name, "description": description, "parameters": schema}
    return len(json.dumps(tool, separators=(",", ":"), ensure_ascii=False))
