"""Toolboxes: which groups of tools a run offers, and the `request_toolbox` meta-tool.

A run starts with the default toolbox (`core`: files, folders, knowledge search, workflow
history — every tool definition is sent with every round, so the default stays small), those
whose connection the user has, and the caller's `initial_toolboxes` (when available). The
model may ask for another one through `request_toolbox` (which lists each in one line); it
becomes active for the *next* round, because the tools of the current round were already sent
to the model.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Literal

from pydantic import BaseModel, Field, create_model
from sqlalchemy import or_, select

from agentur.connections.connection_kind import ConnectionKind, connection_kinds
from agentur.context import RequestContext
from agentur.errors import ForbiddenError
from agentur.settings import AllSettings
from agentur.tools.execute_code import sandbox_unavailable
from agentur.tools.mcp_tools import MCP_TOOLBOX, load_mcp_tools
from agentur.tools.tool import Tool, ToolContext

REQUEST_TOOLBOX = "request_toolbox"


@dataclass(frozen=True, slots=True)
class Toolbox:
    id: str
    description: str
    default_on: bool = False
    requires_connection: str | None = None
    requires_feature_code: str | None = None
    # Why the host cannot run this toolbox's tools (e.g. no sandbox), or None.
    # Why the host cannot run the box's tools (probed once per run, off the event loop).
    host_check: Callable[[AllSettings], str | None] | None = None
    # Tools that exist only per caller (a connected MCP server's): loaded when `request_toolbox`
    # activates the box, never active from the start (that would reach out on every run).
    load_tools: Callable[[ToolContext], Awaitable[list[Tool]]] | None = None


# The toolboxes of connection kinds are declared by the kinds (agentur/connections/kind/) and
# listed after the box each names; these are the others.
BASE_TOOLBOXES = (
    Toolbox("core", "Workspace files, folders and workflow history.", default_on=True),
    Toolbox("ai", "Summaries, charts, reports, images and data neutralization."),
    Toolbox("documents", "Inside indexed documents: containers (ZIP, e-mail), structure, blocks."),
    # No connection needed: read_url works everywhere (egress permitting); web_search and
    # the gateway-backed language tools name the provider setting they miss when called.
    Toolbox("web", "Search the web and read web pages and online documents."),
    Toolbox("language", "Detect language, translate, speech to text and text to speech."),
    Toolbox(
        "code",
        "Run Python (numpy, pandas) in an isolated sandbox on workspace files.",
        host_check=sandbox_unavailable,
    ),
    Toolbox("workflow", "Edit workflow graphs.", requires_feature_code="graphicalEditor"),
    Toolbox("trustee", "Trustee (fiduciary) data.", requires_feature_code="trustee"),
)
# Toolboxes whose tools exist only per caller, by toolbox id.
TOOL_LOADERS = {MCP_TOOLBOX: load_mcp_tools}


def _connection_toolbox(kind: ConnectionKind) -> Toolbox:
    declared = kind.toolbox
    assert declared is not None
    return Toolbox(
        declared.id,
        declared.description,
        requires_connection=kind.name,
        load_tools=TOOL_LOADERS.get(declared.id),
    )


def with_connection_toolboxes(base: tuple[Toolbox, ...]) -> list[Toolbox]:
    boxes = list(base)
    pending = [kind for kind in connection_kinds().values() if kind.toolbox is not None]
    for _ in range(len(pending)):  # a kind's box may follow another kind's box
        for kind in list(pending):
            ids = [box.id for box in boxes]
            if kind.toolbox and kind.toolbox.after in ids:
                boxes.insert(ids.index(kind.toolbox.after) + 1, _connection_toolbox(kind))
                pending.remove(kind)
    return boxes + [_connection_toolbox(kind) for kind in pending]  # naming no known box: last


TOOLBOXES: dict[str, Toolbox] = {box.id: box for box in with_connection_toolboxes(BASE_TOOLBOXES)}


@dataclass(frozen=True, slots=True)
class ToolboxEnvironment:
    """What the caller has that toolboxes depend on: connections and feature codes."""

    connections: frozenset[str] = frozenset()
    feature_codes: frozenset[str] = frozenset()
    # Toolbox id -> why this host cannot run it (its `host_check`).
    host_refusals: dict[str, str] = field(default_factory=dict)


def unavailable_reason(toolbox: Toolbox, environment: ToolboxEnvironment) -> str | None:
    if why := environment.host_refusals.get(toolbox.id):
        return why
    if toolbox.requires_connection and toolbox.requires_connection not in environment.connections:
        return f"toolbox {toolbox.id!r} needs a {toolbox.requires_connection} connection"
    if (
        toolbox.requires_feature_code
        and toolbox.requires_feature_code not in environment.feature_codes
    ):
        return f"toolbox {toolbox.id!r} needs the feature {toolbox.requires_feature_code!r}"
    return None


@dataclass
class ToolboxState:
    """The toolboxes of one run. `active` is read at the start of each round."""

    environment: ToolboxEnvironment
    active: set[str] = field(default_factory=set)
    activations: list[dict[str, str]] = field(default_factory=list)
    loaded_tools: list[Tool] = field(default_factory=list)  # from `Toolbox.load_tools`

    @classmethod
    def initial(cls, environment: ToolboxEnvironment, requested: list[str]) -> ToolboxState:
        active = {
            box.id
            for box in TOOLBOXES.values()
            if box.default_on
            or (
                box.requires_connection
                and box.load_tools is None
                and unavailable_reason(box, environment) is None
            )
        }
        active.update(
            box_id
            for box_id in requested
            if box_id in TOOLBOXES
            and TOOLBOXES[box_id].load_tools is None
            and unavailable_reason(TOOLBOXES[box_id], environment) is None
        )
        return cls(environment=environment, active=active)

    @property
    def inactive(self) -> list[str]:
        """Toolboxes `request_toolbox` offers. A feature toolbox (workflow, trustee) is left
        out where the mandate has no instance of its feature: there is nothing it could read."""
        return sorted(
            box.id
            for box in TOOLBOXES.values()
            if box.id not in self.active
            and not (
                box.requires_feature_code
                and box.requires_feature_code not in self.environment.feature_codes
            )
        )

    def activate(self, toolbox_id: str, reason: str) -> None:
        toolbox = TOOLBOXES.get(toolbox_id)
        if toolbox is None:
            raise ForbiddenError(f"there is no toolbox {toolbox_id!r}")
        if toolbox_id in self.active:
            return
        if why := unavailable_reason(toolbox, self.environment):
            raise ForbiddenError(why)
        self.active.add(toolbox_id)
        self.activations.append({"toolbox_id": toolbox_id, "reason": reason})


class ToolboxActivated(BaseModel):
    toolbox_id: str
    active_from: Literal["next_round"] = "next_round"
    message: str


@lru_cache(maxsize=64)
def _request_toolbox_shape(inactive: tuple[str, ...]) -> tuple[type[BaseModel], str]:
    """Argument model and description for one set of inactive toolboxes. Cached because
    building a pydantic model costs ~3 ms — more than the rest of a round — and the same few
    sets recur in every run."""
    descriptions = "\n".join(f"- {box_id}: {TOOLBOXES[box_id].description}" for box_id in inactive)
    arguments = create_model(
        "RequestToolboxArguments",
        toolbox_id=(Literal[inactive], Field(description="The toolbox to activate.")),
        reason=(str, Field(min_length=1, max_length=500, description="Why it is needed.")),
    )
    return (
        arguments,
        f"Activate a toolbox; its tools are offered from the next round.\n{descriptions}",
    )


def request_toolbox_tool(state: ToolboxState) -> Tool | None:
    """The meta-tool for this round; its enum lists only the currently inactive toolboxes."""
    inactive = state.inactive
    if not inactive:
        return None
    arguments, description = _request_toolbox_shape(tuple(inactive))

    async def handler(args: BaseModel, context: ToolContext) -> ToolboxActivated:
        toolbox_id = args.toolbox_id  # type: ignore[attr-defined]
        toolbox = TOOLBOXES[toolbox_id]
        if toolbox.load_tools and toolbox_id not in state.active:
            if why := unavailable_reason(toolbox, state.environment):
                raise ForbiddenError(why)
            state.loaded_tools.extend(await toolbox.load_tools(context))
        state.activate(toolbox_id, args.reason)  # type: ignore[attr-defined]
        return ToolboxActivated(
            toolbox_id=toolbox_id,
            message=f"toolbox {toolbox_id!r} is active; its tools are offered from the next round",
        )

    return Tool(
        name=REQUEST_TOOLBOX,
        description=description,
        arguments=arguments,
        handler=handler,
        read_only=True,  # changes only this run's state, not the user's data
        toolbox="core",
    )


def host_refusals(settings: AllSettings) -> dict[str, str]:
    """Toolbox id -> why this host cannot run it, for every box with a host check."""
    return {
        box.id: why
        for box in TOOLBOXES.values()
        if box.host_check and (why := box.host_check(settings))
    }


async def load_toolbox_environment(runtime: object, context: RequestContext) -> ToolboxEnvironment:
    """Feature codes of the caller's mandate and the kinds of their working connections (own
    or shared; "working": its last test did not fail)."""
    from agentur.storage.models import FeatureInstance
    from agentur.storage.models.connections import Connection

    # Probe the host once in a thread; the synchronous toolbox checks later in the run only
    # read the answers.
    settings = getattr(runtime, "all_settings", None)
    refusals = await asyncio.to_thread(host_refusals, settings) if settings else {}
    database = getattr(runtime, "database", None)
    if database is None:
        return ToolboxEnvironment(host_refusals=refusals)
    async with database.session() as session:
        query = select(FeatureInstance.feature_code).where(
            FeatureInstance.mandate_id == context.mandate_id
        )
        if context.feature_instance_id:
            query = query.where(FeatureInstance.id == context.feature_instance_id)
        codes = frozenset((await session.execute(query)).scalars())
        kinds = select(Connection.kind).where(
            Connection.mandate_id == context.mandate_id,
            or_(Connection.owner_id == context.user_id, Connection.owner_id.is_(None)),
            Connection.status != "failed",
        )
        connections = frozenset((await session.execute(kinds)).scalars())
    return ToolboxEnvironment(connections=connections, feature_codes=codes, host_refusals=refusals)
