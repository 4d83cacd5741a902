"""The one rule for every name a user gives — files and folders, connections, assistants and
their flows, help desks and FAQ questions, feature instances, workflows, API keys, mandates.

A name is NFC-normalized and trimmed; it holds no control characters and no invisible formatting
characters (Unicode Cc, Cf, Zl, Zp: bidi overrides such as U+202E, zero-width characters, soft
hyphens) that make one name look like another or reorder what a reader sees; it has at most
`AGENTUR_MAX_NAME_LENGTH` characters, as sent and as stored. Every part checks names with
`clean_name` (services, the CLI) or the `Name` / `OptionalName` types (pydantic models at the
API, whose OpenAPI schema states the same rule). File and folder names add the path rules of
the workspace on top (agentur/workspace/names.py).
"""

from __future__ import annotations

import re
import unicodedata
from typing import Annotated, Any

from pydantic import AfterValidator, Field, WithJsonSchema

from agentur.errors import InvalidInputError
from agentur.setting_limits import limit_from_setting

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
# What `clean_name` accepts, as JSON-Schema patterns: nothing invisible, and for a required
# name something besides spaces (an optional one may be empty or spaces: stored as "").
# (No lookahead: generators such as schemathesis build matching strings from the pattern.)
NAME_PATTERN = rf"^[^{INVISIBLE_CLASS}]*[^\s{INVISIBLE_CLASS}][^{INVISIBLE_CLASS}]*$"
OPTIONAL_NAME_PATTERN = rf"^[^{INVISIBLE_CLASS}]*$"

DEFAULT_MAX_NAME_LENGTH = 255
MAX_NAME_LENGTH_CEILING = 1024  # the highest AGENTUR_MAX_NAME_LENGTH may be


class _Configured:
    """AGENTUR_MAX_NAME_LENGTH of this process, set by the runtime when it is built (the one
    place settings are read); `Name` fields of request models read it while validating."""

    max_name_length = DEFAULT_MAX_NAME_LENGTH


def use_max_name_length(value: int) -> None:
    _Configured.max_name_length = value


def max_name_length() -> int:
    return _Configured.max_name_length


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


def clean_name(
    raw: str, what: str = "name", *, max_length: int | None = None, required: bool = True
) -> str:
    """The name, NFC-normalized and trimmed, or InvalidInputError saying what is wrong.
    `max_length` defaults to the configured AGENTUR_MAX_NAME_LENGTH; `required=False` lets an
    empty name (a workflow without a title) through."""
    limit = max_name_length() if max_length is None else max_length
    refuse_invisible(raw, what)  # as sent: stripping must not hide a trailing \r
    name = unicodedata.normalize("NFC", raw).strip()
    if required and not name:
        raise InvalidInputError(f"{what} must not be empty")
    # The limit holds for the name as sent too, which is what the OpenAPI `maxLength` states.
    if max(len(raw), len(name)) > limit:
        raise InvalidInputError(f"{what} is longer than {limit} characters")
    return name


def name_from_text(text: str, max_length: int | None = None) -> str:
    """A name derived from free text (a prompt becomes a workflow's title): invisible
    characters and line breaks become spaces, runs of spaces one, cut to the limit."""
    limit = max_name_length() if max_length is None else max_length
    visible = _INVISIBLE.sub(" ", unicodedata.normalize("NFC", text))
    return " ".join(visible.split())[:limit].strip()


def _check(required: bool, max_length: int | None) -> AfterValidator:
    def check(value: str) -> str:
        try:
            return clean_name(value, "the name", max_length=max_length, required=required)
        except InvalidInputError as error:
            raise ValueError(error.detail) from error

    return AfterValidator(check)


def name_rule(*, required: bool = True, max_length: int | None = None) -> tuple[Any, ...]:
    """The rule as pydantic metadata (`Annotated[str, *name_rule(...)]`): the check, a hard
    ceiling, and the schema that states both. `max_length` is for longer names such as FAQ
    questions; by default the limit is AGENTUR_MAX_NAME_LENGTH."""
    limit = limit_from_setting("max_name_length") if max_length is None else {}
    schema = {
        "type": "string",
        "pattern": NAME_PATTERN if required else OPTIONAL_NAME_PATTERN,
        "maxLength": max_length or MAX_NAME_LENGTH_CEILING,
        "description": "A name: no control or invisible characters (Unicode Cc, Cf, Zl, Zp); "
        "NFC-normalized and trimmed"
        + ("" if max_length else "; at most AGENTUR_MAX_NAME_LENGTH characters")
        + ".",
        **limit,
    }
    return (
        Field(max_length=max_length or MAX_NAME_LENGTH_CEILING),
        _check(required, max_length),
        WithJsonSchema(schema),
    )


# A required name, and one that may be empty (its field defaults to "").
Name = Annotated[str, *name_rule()]
OptionalName = Annotated[str, *name_rule(required=False)]
