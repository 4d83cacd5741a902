"""Rules for file and folder names, and the free name for a duplicate.

Duplicates in one folder get the suffix users know from desktop file managers:
`notes.txt`, `notes (2).txt`, `notes (3).txt`, …
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Container

from agentur.errors import InvalidInputError

_CONTROL = re.compile(r"[\x00-\x1f\x7f-\x9f]")
_SUFFIX = re.compile(r"^(?P<stem>.*?) \((?P<number>\d+)\)$")


def validate_name(raw: str, max_length: int, kind: str = "file") -> str:
    """The name, NFC-normalized and trimmed, or InvalidInputError saying what is wrong."""
    name = unicodedata.normalize("NFC", raw).strip()
    if not name:
        raise InvalidInputError(f"{kind} name must not be empty")
    if name in (".", "..") or ".." in name.split("/") or ".." in name:
        raise InvalidInputError(f"{kind} name must not contain '..': {raw!r}")
    if "/" in name or "\\" in name:
        raise InvalidInputError(f"{kind} name must not contain '/' or '\\': {raw!r}")
    if _CONTROL.search(name):
        raise InvalidInputError(f"{kind} name must not contain control characters")
    if len(name) > max_length:
        raise InvalidInputError(f"{kind} name is longer than {max_length} characters")
    return name


def split_extension(name: str) -> tuple[str, str]:
    """('report.final', '.pdf') for 'report.final.pdf'; a leading dot is not an extension."""
    dot = name.rfind(".")
    if dot <= 0:
        return name, ""
    return name[:dot], name[dot:]


def free_name(name: str, taken: Container[str]) -> str:
    """`name` if free, else the first free `stem (n).ext` with n ≥ 2."""
    if name not in taken:
        return name
    stem, extension = split_extension(name)
    match = _SUFFIX.match(stem)
    if match:
        stem = match.group("stem")
    number = 2
    while f"{stem} ({number}){extension}" in taken:
        number += 1
    return f"{stem} ({number}){extension}"
