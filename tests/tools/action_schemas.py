"""The committed snapshot of every action tool's schema (name, description, argument JSON
schema), and how the current tools differ from it.

A tool generated from an action's signature always agrees with that signature, so only a saved
copy notices when the signature — what models are offered — changes. Regenerate the snapshot on
purpose, after reviewing the change, with:

    python -m tests.tools.action_schemas
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from agentur.tools.registry import ToolRegistry
from agentur.tools.tool import Tool

SNAPSHOT = Path(__file__).with_name("action_tool_schemas.json")
REGENERATE = "python -m tests.tools.action_schemas"


def action_tools() -> list[Tool]:
    return [tool for tool in ToolRegistry.discover().all() if tool.is_action]


def schemas(tools: Iterable[Tool]) -> dict[str, Any]:
    return {
        tool.name: {"description": tool.description, "arguments": tool.json_schema()}
        for tool in sorted(tools, key=lambda tool: tool.name)
    }


def saved() -> dict[str, Any]:
    return json.loads(SNAPSHOT.read_text())


def _changes(before: dict[str, Any], now: dict[str, Any]) -> list[str]:
    found = []
    if before["description"] != now["description"]:
        found.append("description changed")
    old, new = before["arguments"], now["arguments"]
    old_properties, new_properties = old.get("properties", {}), new.get("properties", {})
    for name in sorted(old_properties.keys() | new_properties.keys()):
        if name not in old_properties:
            found.append(f"parameter {name!r} is new")
        elif name not in new_properties:
            found.append(f"parameter {name!r} is gone")
        elif old_properties[name] != new_properties[name]:
            found.append(f"parameter {name!r} changed type, limits or description")
    if set(old.get("required", [])) != set(new.get("required", [])):
        found.append("required parameters changed")
    # The arguments model's title follows the tool's name, which is the key already.
    compared = ("properties", "required", "title")
    if {k: v for k, v in old.items() if k not in compared} != {
        k: v for k, v in new.items() if k not in compared
    }:
        found.append("nested types or schema options changed")
    return found


def differences(current: dict[str, Any], snapshot: dict[str, Any]) -> list[str]:
    """Every way `current` differs from `snapshot`, one line each; empty when equal."""
    found = []
    for name in sorted(current.keys() | snapshot.keys()):
        if name not in snapshot:
            found.append(f"{name}: a new action tool, not in the snapshot")
        elif name not in current:
            found.append(f"{name}: in the snapshot, but no action tool any more")
        elif current[name] != snapshot[name]:
            found += [f"{name}: {change}" for change in _changes(snapshot[name], current[name])]
    return found


def write() -> None:
    text = json.dumps(schemas(action_tools()), indent=2, ensure_ascii=False, sort_keys=True)
    SNAPSHOT.write_text(text + "\n")


if __name__ == "__main__":
    write()
    print(f"wrote {SNAPSHOT}")
