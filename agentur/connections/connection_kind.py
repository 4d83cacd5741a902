"""A kind of connection is one module in agentur/connections/kind/ that declares a `KIND`: its
name, its settings model, how its access is built from the settings and the secret, how it is
tested, and the agent toolbox its tools belong to. The modules are found the way tools are
(every module of the package), so adding a kind adds a module and touches no list."""

from __future__ import annotations

import importlib
import pkgutil
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from functools import cache
from typing import Any

from pydantic import ValidationError

from agentur.connections.kinds import ConnectionSettingsModel
from agentur.errors import InvalidInputError

KIND_PACKAGE = "agentur.connections.kind"


@dataclass(frozen=True, slots=True)
class KindToolbox:
    """The toolbox the kind's tools are in, offered once the caller has such a connection."""

    id: str
    description: str
    after: str  # the toolbox it is listed after (the listing the model sees keeps its order)


@dataclass(frozen=True, slots=True)
class ConnectionKind:
    name: str
    settings: type[ConnectionSettingsModel]
    # (settings, secret, timeout seconds, largest transfer in bytes) -> the access the tools use
    access: Callable[[Any, str, float, int], Any]
    # The `test` action: reach the server, log in, change nothing; raises `AgenturError`.
    check: Callable[[Any], Awaitable[None]]
    toolbox: KindToolbox | None = None


@cache
def connection_kinds() -> dict[str, ConnectionKind]:
    package = importlib.import_module(KIND_PACKAGE)
    found: dict[str, ConnectionKind] = {}
    for module_info in sorted(pkgutil.iter_modules(package.__path__), key=lambda m: m.name):
        kind = getattr(importlib.import_module(f"{KIND_PACKAGE}.{module_info.name}"), "KIND", None)
        if isinstance(kind, ConnectionKind):
            found[kind.name] = kind
    return found


def kind_names() -> list[str]:
    return sorted(connection_kinds())


def validate_settings(kind: str, settings: dict[str, Any]) -> ConnectionSettingsModel:
    found = connection_kinds().get(kind)
    if found is None:
        raise InvalidInputError(f"unknown connection kind {kind!r}; known: {kind_names()}")
    try:
        return found.settings.model_validate(settings)
    except ValidationError as error:
        first = error.errors()[0]
        where = "".join(f"{part}: " for part in first["loc"])
        message = first["msg"].removeprefix("Value error, ")
        raise InvalidInputError(f"{kind} settings: {where}{message}") from error
