"""Bounded parameter types the routes share, so each limit is stated once in the schema.

Names and tags keep their checks (with specific messages) in the workspace; here the OpenAPI
document states the same rules (`pattern`, `maxLength`, `maxItems`) without enforcing them
twice. Paging bounds are enforced here and again where the query is built."""

from __future__ import annotations

from typing import Annotated

from fastapi import Query
from pydantic import Field, WithJsonSchema

from agentur.names import INVISIBLE_CLASS
from agentur.setting_limits import limit_from_setting
from agentur.storage.paging import MAX_OFFSET
from agentur.workspace.file_attributes import MAX_TAG_LENGTH, MAX_TAGS, TAG_PATTERN
from agentur.workspace.names import NAME_PATTERN

# Text that is not only whitespace (Python's `str.strip()` also strips \x1c-\x1f).
NOT_BLANK = r"[^\s\x1c-\x1f]"
Offset = Annotated[int, Query(ge=0, le=MAX_OFFSET, description="Items to skip.")]


def _name_schema(what: str) -> WithJsonSchema:
    return WithJsonSchema(
        {
            "type": "string",
            "pattern": NAME_PATTERN,
            "description": f"A {what} name: no '/', '\\', '..', control or invisible "
            "characters; at most AGENTUR_MAX_NAME_LENGTH characters; trimmed.",
            **limit_from_setting("max_name_length"),
        }
    )


# The hard ceiling is the setting's own maximum; the configured value is checked (with a
# specific message) where names are validated, and stated in the OpenAPI document.
FileName = Annotated[str, Field(max_length=1024), _name_schema("file")]
FolderName = Annotated[str, Field(max_length=1024), _name_schema("folder")]

Tag = Annotated[
    str,
    WithJsonSchema({"type": "string", "maxLength": MAX_TAG_LENGTH, "pattern": TAG_PATTERN}),
]
Tags = Annotated[list[Tag], Field(max_length=MAX_TAGS)]
TagFilter = Annotated[list[Tag], Query(max_length=MAX_TAGS)]
# A form value may carry several comma-separated tags, each within the tag limits.
_TAG_PART = f"[^,{INVISIBLE_CLASS}]{{0,{MAX_TAG_LENGTH}}}"
UploadTag = Annotated[
    str, WithJsonSchema({"type": "string", "pattern": f"^{_TAG_PART}(,{_TAG_PART})*$"})
]
UploadTags = Annotated[list[UploadTag], Field(max_length=MAX_TAGS)]
