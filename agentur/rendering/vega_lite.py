"""Vega-Lite specs to PNG and SVG with Vega-Lite itself (vl-convert ships Vega, Vega-Lite and the
JavaScript engine in its wheel: no browser, no network), or a refusal that names every reason.

A chart is never drawn silently wrong: the spec is first validated against the Vega-Lite JSON
schema (altair ships it), so a misspelt property is refused instead of ignored; then every
warning Vega-Lite gives while compiling — a channel it drops, a setting it cannot honour — is a
refusal too. Data must be inline: no URL is ever loaded.

`render_vega_lite` holds the GIL for its whole run (vl-convert does not release it): callers run
it in a worker process, never on the event loop or in its threads.
"""

from __future__ import annotations

import importlib.util
import json
import os
import re
import tempfile
from collections.abc import Callable, Iterator
from functools import cache
from pathlib import Path
from typing import Any, TypeVar

from agentur.errors import InvalidInputError

T = TypeVar("T")
SCHEMA_FOLDER = "vegalite/v6/schema"  # inside the altair package
MAX_GENERATED_ROWS = 10_000  # rows a `sequence` generator may make
MAX_REASONS = 5


class ChartRefused(InvalidInputError):
    """The spec asks for something that would not be drawn as written."""


@cache
def _schema() -> tuple[Any, str]:
    """The Vega-Lite schema's validator and its Vega-Lite version (`6.4`), read from altair's
    package data without importing altair (which would load pandas-like machinery)."""
    import jsonschema

    found = importlib.util.find_spec("altair")
    if found is None or not found.submodule_search_locations:
        raise RuntimeError("validating Vega-Lite specs needs the altair package")
    folder = Path(found.submodule_search_locations[0], SCHEMA_FOLDER)
    schema = json.loads((folder / "vega-lite-schema.json").read_text())
    version = re.search(r"SCHEMA_VERSION = [\'\"]v(\d+\.\d+)", (folder / "__init__.py").read_text())
    return jsonschema.Draft7Validator(schema), version.group(1) if version else ""


def _where(path: Any) -> str:
    return ".".join(str(part) for part in path) or "the spec"


# Among equally good alternatives, the complaint a writer of the spec understands best.
RANK = {"additionalProperties": 0, "enum": 1, "required": 2, "type": 3}


def _explain(error: Any) -> list[Any]:
    """The errors that matter of a schema error: for a failed `anyOf`/`oneOf`, those of the
    alternative the spec meant — the one that got deepest into it, then with fewest errors."""
    if not error.context:
        return [error]
    branches: dict[Any, list[Any]] = {}
    for sub in error.context:
        branches.setdefault(sub.relative_schema_path[0], []).append(sub)

    def score(leaves: list[Any]) -> tuple[int, int, int]:
        depth = max(len(leaf.absolute_path) for leaf in leaves)
        rank = min(RANK.get(leaf.validator, 9) for leaf in leaves)
        return depth, -len(leaves), -rank

    explained = [[leaf for sub in subs for leaf in _explain(sub)] for subs in branches.values()]
    return max(explained, key=score)


def _schema_reasons(spec: dict[str, Any]) -> list[str]:
    """What the schema refuses, by place (an unknown property is the usual typo)."""
    validator, _ = _schema()
    leaves = [leaf for error in validator.iter_errors(spec) for leaf in _explain(error)]
    # "'boxplot' was expected" is the noise of alternatives, when anything else is said.
    leaves = [leaf for leaf in leaves if leaf.validator != "const"] or leaves
    leaves.sort(key=lambda leaf: (list(map(str, leaf.absolute_path)), RANK.get(leaf.validator, 9)))
    return list(
        dict.fromkeys(f"{_where(leaf.absolute_path)}: {leaf.message[:200]}" for leaf in leaves)
    )


def _walk(node: Any, path: tuple[str, ...] = ()) -> Iterator[tuple[tuple[str, ...], Any]]:
    """Every (path, value) of the spec, but not into lists of `values` (inline data rows,
    where a column may well be called `url`)."""
    if isinstance(node, dict):
        for key, value in node.items():
            yield (*path, str(key)), value
            if not (key == "values" and isinstance(value, list)):
                yield from _walk(value, (*path, str(key)))
    elif isinstance(node, list):
        for number, value in enumerate(node):
            yield from _walk(value, (*path, str(number)))


def _content_reasons(spec: dict[str, Any]) -> list[str]:
    reasons = []
    for path, value in _walk(spec):
        if path[-1] == "url":
            reasons.append(
                f"{'.'.join(path)}: nothing is loaded from URLs; give the data inline "
                "(data.values, or the tool's csv_file_id)"
            )
        if path[-1] == "sequence" and isinstance(value, dict):
            start, stop = value.get("start", 0), value.get("stop", 0)
            step = value.get("step", 1) or 1
            numbers = all(isinstance(v, int | float) for v in (start, stop, step))
            if numbers and abs((stop - start) / step) > MAX_GENERATED_ROWS:
                reasons.append(f"{'.'.join(path)}: generates more than {MAX_GENERATED_ROWS} rows")
    return reasons


def _captured(convert: Callable[[], T]) -> tuple[T, str]:
    """`convert()` and what it printed: Vega-Lite's warnings go to this process's stdout."""
    with tempfile.TemporaryFile() as sink:
        saved = os.dup(1), os.dup(2)
        os.dup2(sink.fileno(), 1)
        os.dup2(sink.fileno(), 2)
        try:
            result = convert()
        finally:
            os.dup2(saved[0], 1)
            os.dup2(saved[1], 2)
            os.close(saved[0])
            os.close(saved[1])
        sink.seek(0)
        return result, sink.read().decode(errors="replace")


def _refuse(reasons: list[str]) -> ChartRefused:
    shown = "; ".join(reasons[:MAX_REASONS])
    more = f" (and {len(reasons) - MAX_REASONS} more)" if len(reasons) > MAX_REASONS else ""
    return ChartRefused(f"the Vega-Lite spec is refused: {shown}{more}")


def render_vega_lite(spec: dict[str, Any], scale: float = 1.0) -> tuple[bytes, bytes]:
    """PNG and SVG bytes of the spec; ChartRefused with every reason it is not drawn as written."""
    import vl_convert

    if not isinstance(spec, dict):
        raise ChartRefused("the Vega-Lite spec must be a JSON object")
    reasons = _schema_reasons(spec) + _content_reasons(spec)
    if reasons:
        raise _refuse(reasons)
    _, version = _schema()
    options: dict[str, Any] = {"show_warnings": True, "allowed_base_urls": []}
    if version in vl_convert.get_vegalite_versions():
        options["vl_version"] = version  # the version the schema describes
    try:
        svg, warnings = _captured(lambda: vl_convert.vegalite_to_svg(spec, **options))
        png, _ = _captured(lambda: vl_convert.vegalite_to_png(spec, scale=scale, **options))
    except ValueError as error:
        # "Vega-Lite to SVG conversion failed:\nError: <reason>\n    at <stack>": the reason.
        lines = [line.strip() for line in str(error).splitlines() if line.strip()]
        reason = next((line for line in lines[1:] if not line.startswith("at ")), lines[0])
        raise _refuse([reason]) from None
    found = [line.removeprefix("WARN").strip() for line in warnings.splitlines() if line.strip()]
    if found:
        raise _refuse(found)
    return png, svg.encode()
