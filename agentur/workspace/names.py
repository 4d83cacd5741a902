"""Rules for file and folder names, and the free name for a duplicate.

A name is a name, never a path: `/` and `\\` are refused everywhere (also in an upload's file
name as the client sent it), as are `..`, control characters and invisible formatting characters
(bidi overrides such as U+202E, zero-width characters) that make a name look like another.

Duplicates in one folder get the suffix users know from desktop file managers:
`notes.txt`, `notes (2).txt`, `notes (3).txt`, …
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Container

from agentur.errors import InvalidInputError

# Unicode categories Cc (control), Cf (format: bidi controls, zero-width, soft hyphen), Zl and
# Zp, as regex escapes so the OpenAPI document can state the same rule (`NAME_PATTERN`).
# Surrogates (Cs) are refused too, but only here: they are not characters a schema can name.
INVISIBLE_CLASS = (
    r"\x00-\x1f\x7f-\x9f\xad\u0600-\u0605\u061c\u06dd\u070f\u0890-\u0891\u08e2\u180e"
    r"\u200b-\u200f\u2028-\u202e\u2060-\u2064\u2066-\u206f\ufeff\ufff9-\ufffb\U000110bd"
    r"\U000110cd\U00013430-\U0001343f\U0001bca0-\U0001bca3\U0001d173-\U0001d17a\U000e0001"
    r"\U000e0020-\U000e007f"
)
_INVISIBLE = re.compile(f"[{INVISIBLE_CLASS}\\ud800-\\udfff]")
# What `validate_name` accepts with the default checks, as one JSON-Schema pattern: no `..`, not
# `.`, something besides spaces, no separators or invisible characters.
NAME_PATTERN = rf"^(?!.*\.\.)(?!\s*\.\s*$)(?=.*\S)[^/\\{INVISIBLE_CLASS}]*$"
_SUFFIX = re.compile(r"^(?P<stem>.*?) \((?P<number>\d+)\)$")


def refuse_invisible(value: str, what: str) -> None:
    """InvalidInputError naming the first control or invisible character of `value`."""
    found = _INVISIBLE.search(value)
    if found:
        char = found.group()
        label = unicodedata.name(char, unicodedata.category(char))
        raise InvalidInputError(
            f"{what} must not contain control or invisible characters "
            f"(found U+{ord(char):04X} {label})"
        )


def validate_name(raw: str, max_length: int, kind: str = "file") -> str:
    """The name, NFC-normalized and trimmed, or InvalidInputError saying what is wrong."""
    name = unicodedata.normalize("NFC", raw).strip()
    if not name:
        raise InvalidInputError(f"{kind} name must not be empty")
    if name in (".", "..") or ".." in name:
        raise InvalidInputError(f"{kind} name must not contain '..': {raw!r}")
    if "/" in name or "\\" in name:
        raise InvalidInputError(f"{kind} name must not contain '/' or '\\': {raw!r}")
    refuse_invisible(raw, f"{kind} name")  # as sent: stripping must not hide a trailing \r
    # The limit holds for the name as sent too, which is what the OpenAPI `maxLength` states.
    if max(len(raw), len(name)) > max_length:
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
