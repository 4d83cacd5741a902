"""Values that reach a wire protocol — IMAP and SMTP commands, HTTP header values, URLs — are
single lines: a CR or LF would end the command or header and start one the sender chose
(protocol injection), a NUL cuts it short. One rule for every such setting and credential,
checked where the value enters (pydantic models at the API, the CLI) and again by each client.

Tab is the one control character allowed: header values and IMAP strings may carry it, and a
password may contain it."""

from __future__ import annotations

import re
from typing import Annotated, Any

from pydantic import AfterValidator, BaseModel, Field, field_validator

CONTROL_CLASS = r"\x00-\x08\x0a-\x1f\x7f"
CONTROL = re.compile(f"[{CONTROL_CLASS}]")
# The same rule as a JSON-Schema pattern, so the OpenAPI document states it.
WIRE_PATTERN = f"^[^{CONTROL_CLASS}]*$"


def wire_problem(value: str) -> str | None:
    """What makes `value` unfit for a protocol line, or None."""
    found = CONTROL.search(value)
    if found is None:
        return None
    named = {"\r": "CR", "\n": "LF", "\x00": "NUL"}.get(found.group(), "a control character")
    return f"must be one line without control characters (found {named} U+{ord(found.group()):04X})"


def _single_line(value: str) -> str:
    if problem := wire_problem(value):
        raise ValueError(problem)
    return value


WireText = Annotated[
    str, AfterValidator(_single_line), Field(json_schema_extra={"pattern": WIRE_PATTERN})
]


class WireModel(BaseModel):
    """A model whose every string field goes onto a wire: each one is checked by the rule."""

    @field_validator("*")
    @classmethod
    def _single_line_strings(cls, value: Any) -> Any:
        return _single_line(value) if isinstance(value, str) else value
