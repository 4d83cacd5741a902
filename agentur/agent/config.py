"""`AgentConfig`: the caller's knobs for one run, validated at the boundary."""

from __future__ import annotations

from enum import StrEnum

from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    StrictBool,
    StrictFloat,
    field_validator,
)

from agentur.json_numbers import JsonInt
from agentur.tools.toolboxes import TOOLBOXES

MAX_RUN_COST_CHF = 1_000_000.0


class ToolSet(StrEnum):
    core = "core"  # every registered tool of the active toolboxes
    read_only = "read_only"  # only tools that change nothing
    none = "none"  # plain chat, no tools offered


class AgentConfig(BaseModel):
    # Numbers are finite: `1e999` parses as infinity, which is no budget at all.
    model_config = ConfigDict(extra="forbid", frozen=True, allow_inf_nan=False)

    # Strict numbers and booleans: `false` is not a budget, `0` is not a yes/no.
    max_rounds: JsonInt = Field(default=25, ge=1, le=100, description="Model rounds at most.")
    max_cost_chf: StrictFloat | None = Field(
        default=None,
        gt=0,
        le=MAX_RUN_COST_CHF,
        description="Budget of the run in CHF; none means unlimited.",
    )
    tool_set: ToolSet = Field(default=ToolSet.core, description="Which tools are offered.")
    temperature: StrictFloat | None = Field(default=None, ge=0, le=2)
    initial_toolboxes: list[str] = Field(
        default_factory=list,
        max_length=100,
        description="Toolboxes active from the first round, besides the default ones.",
        json_schema_extra={"items": {"type": "string", "enum": sorted(TOOLBOXES)}},
    )
    exclude_action_tools: StrictBool = Field(
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
