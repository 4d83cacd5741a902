"""The tool registry: every `Tool` the agent may offer, found by convention.

A new tool family is one new module `agentur/tools/<family>.py` with a module-level `TOOLS`
list; discovery imports every module of the package and collects them, so neither the loop
nor this file changes when a tool is added.
"""

from __future__ import annotations

import importlib
import logging
import pkgutil
from collections.abc import Iterable
from functools import lru_cache

from agentur.tools.tool import Tool

logger = logging.getLogger(__name__)


class ToolRegistry:
    def __init__(self, tools: Iterable[Tool]) -> None:
        self._tools: dict[str, Tool] = {}
        for tool in tools:
            if tool.name in self._tools:
                raise ValueError(f"two tools are named {tool.name!r}")
            self._tools[tool.name] = tool

    def get(self, name: str) -> Tool | None:
        return self._tools.get(name)

    def all(self) -> list[Tool]:
        return list(self._tools.values())

    def names(self) -> list[str]:
        return sorted(self._tools)

    def with_tools(self, *tools: Tool) -> ToolRegistry:
        return ToolRegistry([*self._tools.values(), *tools])

    @classmethod
    def discover(cls, package: str = "agentur.tools") -> ToolRegistry:
        return cls(_discover(package))


@lru_cache(maxsize=8)
def _discover(package: str) -> tuple[Tool, ...]:
    root = importlib.import_module(package)
    found: list[Tool] = []
    for module_info in sorted(pkgutil.iter_modules(root.__path__), key=lambda m: m.name):
        name = f"{package}.{module_info.name}"
        try:
            module = importlib.import_module(name)
        except Exception:
            # One broken tool family must not take the agent down with it.
            logger.exception("tool module %s failed to import; its tools are not offered", name)
            continue
        tools = getattr(module, "TOOLS", None)
        if tools is None:
            continue
        for tool in tools:
            if not isinstance(tool, Tool):
                raise TypeError(f"{name}.TOOLS holds {tool!r}, which is not a Tool")
            found.append(tool)
    return tuple(found)
