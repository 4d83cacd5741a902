"""What a tool is: a name, a description, a pydantic argument model, a handler, and the flags
the loop and the lifecycle wrapper need. Tools return raw data; the wrapper does the rest
(authorization from the request context, validation, egress, events, timing, windowing).
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Generic, TypeVar

from pydantic import BaseModel

from agentur.context import RequestContext
from agentur.egress.policy import EgressPolicy

if TYPE_CHECKING:
    from agentur.runtime_parts import RuntimeParts

Arguments = TypeVar("Arguments", bound=BaseModel)


@dataclass
class ToolContext:
    """Everything a handler may use. Identity comes from here, never from the arguments."""

    request: RequestContext
    runtime: RuntimeParts
    workflow_id: str | None = None
    run_id: str | None = None
    # What `read_url` may download (web caps, the deployment's allow-list); the loop sets it.
    web_egress: EgressPolicy = field(default_factory=EgressPolicy)
    # Free slots for the loop to hand down (remaining budget, sub-agent limits, …).
    extras: dict[str, Any] = field(default_factory=dict)


Handler = Callable[[Arguments, ToolContext], Awaitable[Any]]


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
