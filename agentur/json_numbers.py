"""An integer as JSON Schema means it, for pydantic models at the boundary.

Lax pydantic reads `true` and `"5"` as integers; JSON Schema (so the OpenAPI document) does
not, while it does count `5.0` as an integer, which strict pydantic refuses. For floats and
booleans pydantic's `StrictFloat` (takes integers) and `StrictBool` already match JSON."""

from __future__ import annotations

from typing import Annotated

from pydantic import BeforeValidator
from pydantic_core import PydanticCustomError


def _json_integer(value: object) -> object:
    if isinstance(value, bool | str | bytes):
        raise PydanticCustomError("int_type", "Input should be a valid integer")
    return value


JsonInt = Annotated[int, BeforeValidator(_json_integer)]
