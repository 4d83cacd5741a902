"""Rules for file and folder names, and the free name for a duplicate.

File and folder names follow the one name rule (`agentur.names`: no control or invisible
characters, NFC, trimmed, length-limited), and a name is a name, never a path: `/` and `\\` are
refused everywhere (also in an upload's file name as the client sent it), as are `.` and `..`.

Duplicates in one folder get the suffix users know from desktop file managers:
`notes.txt`, `notes (2).txt`, `notes (3).txt`, …
"""

from __future__ import annotations

import re
from collections.abc import Container

from agentur.errors import InvalidInputError
from agentur.names import INVISIBLE_CLASS, clean_name

# What `validate_name` accepts with the default checks, as one JSON-Schema pattern: no `..`, not
# `.`, something besides spaces, no separators or invisible characters.
NAME_PATTERN = rf"^(?!.*\.\.)(?!\s*\.\s*$)(?=.*\S)[^/\\{INVISIBLE_CLASS}]*$"
_SUFFIX = re.compile(r"^(?P<stem>.*?) \((?P<number>\d+)\)$")


def validate_name(raw: str, max_length: int, kind: str = "file") -> str:
    """The name by the one name rule (`agentur.names`), and a name, never a path: no `/`, `\\`,
    `.` or `..`; or InvalidInputError saying what is wrong."""
    name = clean_name(raw, f"{kind} name", max_length=max_length)
    if name in (".", "..") or ".." in name:
        raise InvalidInputError(f"{kind} name must not contain '..': {raw!r}")
    if "/" in name or "\\" in name:
        raise InvalidInputError(f"{kind} name must not contain '/' or '\\': {raw!r}")
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
