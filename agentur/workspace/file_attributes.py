"""Attributes of a file that uploads and changes decide: tags, mime type, name conflicts."""

from __future__ import annotations

import mimetypes
from collections.abc import Iterable
from enum import StrEnum

from agentur.errors import InvalidInputError
from agentur.names import INVISIBLE_CLASS, refuse_invisible

MAX_TAGS = 50
MAX_TAG_LENGTH = 100
# One tag as the OpenAPI document states it: no control or invisible characters.
TAG_PATTERN = f"^[^{INVISIBLE_CLASS}]*$"


class OnConflict(StrEnum):
    """What an upload does when its name is taken in the folder."""

    rename = "rename"  # store as `name (2).ext` — the default, nothing is ever overwritten
    replace = "replace"  # new content under the existing file's id
    fail = "fail"  # 409


def validate_tags(tags: Iterable[str]) -> list[str]:
    """Trimmed, de-duplicated, sorted tags, or InvalidInputError naming the bad one.

    Counts and lengths hold for the tags as sent (what the OpenAPI document states), so a
    request is never refused or accepted depending on how its duplicates and blanks fall."""
    sent = list(tags)
    if len(sent) > MAX_TAGS:
        raise InvalidInputError(f"at most {MAX_TAGS} tags")
    for tag in sent:
        if len(tag) > MAX_TAG_LENGTH:
            raise InvalidInputError(f"tag {tag[:40]!r}… is longer than {MAX_TAG_LENGTH} characters")
        refuse_invisible(tag, f"tag {tag[:40]!r}")
    return sorted({tag.strip() for tag in sent if tag.strip()})


def mime_type_for(name: str, declared: str | None) -> str:
    """The declared type unless it says nothing (octet-stream), else a guess from the name."""
    if declared and declared != "application/octet-stream" and "/" in declared:
        return declared.split(";")[0].strip().lower()
    guessed, _ = mimetypes.guess_type(name)
    return guessed or "application/octet-stream"
