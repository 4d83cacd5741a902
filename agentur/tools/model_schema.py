"""A tool's argument schema as a model is shown it: pydantic's JSON schema without what only
costs prompt tokens.

Every tool definition is sent with every round, so its size is paid again and again. Dropped:
`title`s (the property name says it), `default: null` and the `null` branch of optional
arguments (an optional argument is simply not required; `null` sent anyway still means "not
given"), defaults of 0 and false (what a model assumes anyway), string lengths and item counts
(validation reports a violation clearly), and `$defs` (inlined: ours are small enums). Kept:
types, enums, descriptions, required, numeric bounds and non-null defaults — what a model needs
to form a valid call. Validation still runs against the full pydantic model.

Numeric bounds go as a pair: a server that compiles the schema into a grammar (llama.cpp) must
see each bound it is given as a real number. A bound beyond the range JSON numbers hold exactly
(2**53) is a sentinel, not a limit — llama.cpp build 10434 reads INT64_MAX as "no bound" and
then refuses an integer with a maximum but no minimum ("At least one of min_value or max_value
must be set") — so such a bound is dropped, here and in schemas MCP servers send.
"""

from __future__ import annotations

from typing import Any

_DROPPED = frozenset({"title", "minLength", "maxLength", "minItems", "maxItems"})
_BOUNDS = ("minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum")
# Beyond this a number is not exact in JSON (float64) and no real argument limit.
LARGEST_BOUND = 2**53


def model_schema(schema: dict[str, Any]) -> dict[str, Any]:
    definitions = schema.get("$defs", {})
    compact = _compact(schema, definitions)
    compact.pop("$defs", None)
    return compact


def _obvious(default: Any) -> bool:
    # `0 == False` in Python: types are checked, so 0.5 or True still count as information.
    return default is None or default is False or (type(default) is int and default == 0)


def _compact(node: Any, definitions: dict[str, Any]) -> Any:
    if isinstance(node, list):
        return [_compact(item, definitions) for item in node]
    if not isinstance(node, dict):
        return node
    if "$ref" in node:
        target = definitions.get(node["$ref"].rsplit("/", 1)[-1], {})
        node = {**target, **{k: v for k, v in node.items() if k != "$ref"}}
    options = node.get("anyOf")
    if isinstance(options, list):
        kept = [option for option in options if option != {"type": "null"}]
        if len(kept) == 1:  # Optional[X]: X, with this node's description and default
            node = {**kept[0], **{k: v for k, v in node.items() if k != "anyOf"}}
    result: dict[str, Any] = {}
    for key, value in node.items():
        if key in _DROPPED or key == "$defs" or (key == "default" and _obvious(value)):
            continue
        if key in _BOUNDS and not _real_bound(value):
            continue
        if key == "properties":
            result[key] = {name: _compact(prop, definitions) for name, prop in value.items()}
        else:
            result[key] = _compact(value, definitions)
    return result


def _real_bound(value: Any) -> bool:
    return (
        isinstance(value, int | float)
        and not isinstance(value, bool)
        and (abs(value) < LARGEST_BOUND)
    )
