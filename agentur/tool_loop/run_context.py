"""What a tool handler receives: the run's identity and request context, the limits the loop
sets per step, and the caller's own dependencies as one typed field (`deps`), as pydantic-ai's
`RunContext[Deps]`. Identity comes from here, never from a model's arguments."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Generic, TypeVar

from agentur.context import RequestContext
from agentur.egress.policy import EgressPolicy
from agentur.tool_loop.results import ResultStore

if TYPE_CHECKING:
    from agentur.runtime_parts import RuntimeParts

Deps = TypeVar("Deps")

DEFAULT_MAX_RESULT_CHARS = 20_000


@dataclass
class RunContext(Generic[Deps]):
    request: RequestContext
    runtime: RuntimeParts
    # The caller's dependencies (the agent's tools: a sub-agent runner, the feature instance;
    # the assistant's: its knowledge and API catalog). Fixed before the loop starts.
    deps: Deps
    workflow_id: str | None = None
    run_id: str | None = None
    # What `read_url` may download (web caps, the deployment's allow-list); the loop sets it.
    web_egress: EgressPolicy = field(default_factory=EgressPolicy)
    # The step the call belongs to and the tools it offers; the loop sets both per step.
    round: int | None = None
    offered_tools: list[str] = field(default_factory=list)
    # Full texts of this run's windowed results, and the window size.
    results: ResultStore = field(default_factory=ResultStore)
    max_result_chars: int = DEFAULT_MAX_RESULT_CHARS
