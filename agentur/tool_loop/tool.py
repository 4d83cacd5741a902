"""What a tool is: a name, a description, a pydantic argument model, a handler, and the flags
the loop and the lifecycle wrapper need. Tools return raw data; the wrapper does the rest
(authorization from the request context, validation, egress, events, timing, windowing).
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any, Generic, TypeVar

from pydantic import BaseModel

Arguments = TypeVar("Arguments", bound=BaseModel)

# (arguments, run context) -> raw result; the context is a `RunContext[...]` of the caller.
Handler = Callable[[Arguments, Any], Awaitable[Any]]


@dataclass(frozen=True)
class Tool(Generic[Arguments]):
    name: str
    description: str
    arguments: type[Arguments]
    handler: Handler[Arguments]
    read_only: bool = False
    toolbox: str = "core"
    timeout_seconds: float | None = None
    # Names of arguments holding URLs: the lifecycle wrapper refuses private targets before
    # the handler runs; the handler fetches through `agentur.egress` (checked and pinned per hop).
    url_arguments: tuple[str, ...] = ()
    # Generated from a workflow action; `exclude_action_tools` leaves these out.
    is_action: bool = False
    # A tool of a user's connection, named after it (`Weather__forecast`): metrics and span
    # names count it as this kind (`mcp`) instead, so no user-chosen name becomes a label.
    connection_kind: str | None = None

    @property
    def observed_name(self) -> str:
        return self.connection_kind or self.name

    def json_schema(self) -> dict[str, Any]:
        return self.arguments.model_json_schema()
