"""`AgentConfig` (A2): the caller's knobs for one run, validated at the boundary."""

from __future__ import annotations

from enum import StrEnum

from pydantic import BaseModel, ConfigDict, Field, field_validator

from agentur.tools.toolboxes import TOOLBOXES


class ToolSet(StrEnum):
    core = "core"  # every registered tool of the active toolboxes
    read_only = "read_only"  # only tools that change nothing
    none = "none"  # plain chat, no tools offered


class AgentConfig(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    max_rounds: int = Field(default=25, ge=1, le=100, description="Model rounds at most.")
    max_cost_chf: float | None = Field(
        default=None, gt=0, description="Budget of the run in CHF; none means unlimited."
    )
    tool_set: ToolSet = Field(default=ToolSet.core, description="Which tools are offered.")
    temperature: float | None = Field(default=None, ge=0, le=2)
    initial_toolboxes: list[str] = Field(
        default_factory=list,
        description="Toolboxes active from the first round, besides the default ones.",
    )
    exclude_action_tools: bool = Field(
        default=False, description="Leave out tools generated from workflow actions."
    )

    @field_validator("initial_toolboxes")
    @classmethod
    def _known_toolboxes(cls, value: list[str]) -> list[str]:
        unknown = sorted(set(value) - set(TOOLBOXES))
        if unknown:
            raise ValueError(
                f"unknown toolbox {', '.join(unknown)}; known: {', '.join(sorted(TOOLBOXES))}"
            )
        return list(dict.fromkeys(value))
