"""Attributes of a file that uploads and changes decide: tags, mime type, name conflicts."""

from __future__ import annotations

import mimetypes
from collections.abc import Iterable
from enum import StrEnum

from agentur.errors import InvalidInputError

MAX_TAGS = 50
MAX_TAG_LENGTH = 100


class OnConflict(StrEnum):
    """What an upload does when its name is taken in the folder."""

    rename = "rename"  # store as `name (2).ext` — the default, nothing is ever overwritten
    replace = "replace"  # new content under the existing file's id
    fail = "fail"  # 409


def validate_tags(tags: Iterable[str]) -> list[str]:
    """Trimmed, de-duplicated, sorted tags, or InvalidInputError naming the bad one."""
    clean = sorted({tag.strip() for tag in tags if tag and tag.strip()})
    if len(clean) > MAX_TAGS:
        raise InvalidInputError(f"at most {MAX_TAGS} tags per file")
    for tag in clean:
        if len(tag) > MAX_TAG_LENGTH or any(ord(c) < 32 for c in tag):
            raise InvalidInputError(
                f"tag {tag[:40]!r} is invalid "
                f"(max {MAX_TAG_LENGTH} characters, no control characters)"
            )
    return clean


def mime_type_for(name: str, declared: str | None) -> str:
    """The declared type unless it says nothing (octet-stream), else a guess from the name."""
    if declared and declared != "application/octet-stream" and "/" in declared:
        return declared.split(";")[0].strip().lower()
    guessed, _ = mimetypes.guess_type(name)
    return guessed or "application/octet-stream"
