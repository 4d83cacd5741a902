"""The assistant's model-facing tools, declared as registry `Tool`s and run through the shared
lifecycle wrapper: authorization and identity from the tool context (never from
arguments), argument validation with a clear error back to the model, timing, error capture.

`knowledge` and `api` come from the run context's `AssistantDeps`, bound to one assistant before
the loop starts, so the model can neither widen the knowledge scope nor name another catalog.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from pydantic import BaseModel, Field

from agentur.ai.messages import ToolCall, ToolDefinition
from agentur.assistant.assistant_api import AssistantApi
from agentur.assistant.knowledge_port import KnowledgeSearch, Passage
from agentur.errors import AgenturError
from agentur.tool_loop.run_context import RunContext
from agentur.tool_loop.run_tool import ToolLimits, ToolOutcome, run_tool
from agentur.tool_loop.tool import Tool
from agentur.tools.registry import ToolRegistry

MAX_WINDOW = 8_000


@dataclass
class AssistantDeps:
    """What the assistant's tools use, bound to one assistant and turn."""

    knowledge: KnowledgeSearch | None = None
    api: AssistantApi | None = None
    # The passages the model has, numbered as it sees them; the tools append to it.
    passages: list[Passage] = field(default_factory=list)
    # The default window of an API response (AGENTUR_ASSISTANT_API_WINDOW_CHARS).
    api_window_chars: int = 4_000


@dataclass
class AssistantContext(RunContext[AssistantDeps]):
    deps: AssistantDeps = field(default_factory=AssistantDeps)


def _knowledge(ctx: AssistantContext) -> KnowledgeSearch:
    if ctx.deps.knowledge is None:
        raise AgenturError("this assistant has no knowledge")
    return ctx.deps.knowledge


class SearchKnowledgeArgs(BaseModel):
    query: str = Field(min_length=1, max_length=1_000)
    limit: int = Field(default=5, ge=1, le=10)


class ReadSourceWindowArgs(BaseModel):
    source_id: str
    offset: int = Field(default=0, ge=0)
    limit: int = Field(default=2_000, ge=1, le=MAX_WINDOW)


class InspectApiArgs(BaseModel):
    endpoint: str | None = None


class CallApiArgs(BaseModel):
    endpoint: str
    path_params: dict[str, str | int | float] = Field(default_factory=dict)
    query: dict[str, str | int | float] = Field(default_factory=dict)
    body: Any = None
    offset: int = Field(default=0, ge=0)
    limit: int | None = Field(default=None, ge=1, le=MAX_WINDOW)


async def _search(args: SearchKnowledgeArgs, ctx: AssistantContext) -> dict[str, Any]:
    passages = await _knowledge(ctx).search(args.query, args.limit)
    # Numbered on from the passages the model already has, so any of them can be cited.
    known = ctx.deps.passages
    first = len(known) + 1
    known.extend(passages)
    return {
        "passages": [
            {"ref": first + index, **p.citation(), "text": p.text}
            for index, p in enumerate(passages)
        ]
    }


async def _read(args: ReadSourceWindowArgs, ctx: AssistantContext) -> dict[str, Any]:
    window = await _knowledge(ctx).read_window(args.source_id, args.offset, args.limit)
    end = window.offset + len(window.content)
    read = Passage(
        window.source_id,
        window.content,
        window.file_name,
        offset=window.offset,
        length=len(window.content),
    )
    known = ctx.deps.passages
    known.append(read)
    return {
        "ref": len(known),
        "source_id": window.source_id,
        "file": window.file_name,
        "content": window.content,
        "offset": window.offset,
        "limit": window.limit,
        "total_length": window.total_length,
        "next_offset": end if end < window.total_length else None,
    }


def _api(ctx: AssistantContext) -> AssistantApi:
    api = ctx.deps.api
    if api is None:
        raise AgenturError("this assistant has no API catalog")
    return api


async def _inspect(args: InspectApiArgs, ctx: AssistantContext) -> dict[str, Any]:
    return _api(ctx).describe(args.endpoint)


async def _call(args: CallApiArgs, ctx: AssistantContext) -> dict[str, Any]:
    response = await _api(ctx).call(args.endpoint, args.path_params, args.query, args.body)
    # The default window is the operator's setting (AGENTUR_ASSISTANT_API_WINDOW_CHARS).
    return response.window(args.offset, args.limit or ctx.deps.api_window_chars)


SEARCH_KNOWLEDGE = Tool(
    "search_knowledge",
    "Search the assistant's documents. Returns passages with file, section and page.",
    SearchKnowledgeArgs,
    _search,
    read_only=True,
    toolbox="assistant",
)
READ_SOURCE_WINDOW = Tool(
    "read_source_window",
    "Read a window of a source document (offset/limit in characters; returns total_length).",
    ReadSourceWindowArgs,
    _read,
    read_only=True,
    toolbox="assistant",
)
INSPECT_API = Tool(
    "inspect_api",
    "Describe the registered API endpoints (method, path, parameters).",
    InspectApiArgs,
    _inspect,
    read_only=True,
    toolbox="assistant",
)
CALL_API = Tool(
    "call_api",
    "Call a registered API endpoint by name with path parameters, query and body; the response "
    "is windowed (offset/limit, total_length).",
    CallApiArgs,
    _call,
    toolbox="assistant",
)


# The assistant's own registry: these tools need an assistant's knowledge and catalog in
# `AssistantDeps`, so they are not offered to the general agent (no module-level TOOLS).
ASSISTANT_TOOLS = ToolRegistry([SEARCH_KNOWLEDGE, READ_SOURCE_WINDOW, INSPECT_API, CALL_API])


def offered_tools(with_api: bool) -> ToolRegistry:
    names = ["search_knowledge", "read_source_window"] + (
        ["inspect_api", "call_api"] if with_api else []
    )
    return ToolRegistry([tool for name in names if (tool := ASSISTANT_TOOLS.get(name))])


def definition(tool: Tool) -> ToolDefinition:
    return ToolDefinition(tool.name, tool.description, tool.json_schema())


async def run_assistant_tool(
    registry: ToolRegistry, call: ToolCall, ctx: AssistantContext, limits: ToolLimits | None = None
) -> ToolOutcome:
    """Through the shared lifecycle wrapper: authorization from the context, argument
    validation back to the model, time limit, error capture, windowed results. Progress for
    visitors is emitted by the caller (simplified thinking), so the raw events are dropped."""
    ctx.offered_tools = registry.names()
    return await run_tool(
        registry.get(call.name), call, ctx, limits or ToolLimits(), lambda _: None
    )
