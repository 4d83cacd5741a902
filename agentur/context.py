"""The request context: who is asking, for which tenant, in which zone and language.

It is set once per request from the authenticated API key and read by deeper code through a
ContextVar, so the gateway and tools never take identity from a model's arguments.
Services still receive it explicitly where they can; the ContextVar is for code far below.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass, replace
from datetime import UTC, datetime
from enum import StrEnum
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError


class Role(StrEnum):
    admin = "admin"
    member = "member"
    viewer = "viewer"


@dataclass(frozen=True, slots=True)
class RequestContext:
    user_id: str
    mandate_id: str
    role: Role
    feature_instance_id: str | None = None
    require_neutralization: bool = False
    timezone: str = "UTC"
    language: str = "en"
    is_platform_admin: bool = False

    @property
    def can_write(self) -> bool:
        return self.role in (Role.admin, Role.member)

    @property
    def is_mandate_admin(self) -> bool:
        return self.role is Role.admin

    def with_changes(self, **changes: object) -> RequestContext:
        return replace(self, **changes)  # type: ignore[arg-type]


_current: ContextVar[RequestContext | None] = ContextVar("agentur_request_context", default=None)


def get_request_context() -> RequestContext:
    context = _current.get()
    if context is None:
        raise LookupError("no request context is set for this task")
    return context


def set_request_context(context: RequestContext) -> None:
    _current.set(context)


@contextmanager
def request_context(context: RequestContext) -> Iterator[RequestContext]:
    """Use `context` inside the block (CLI commands, background work, tests)."""
    token = _current.set(context)
    try:
        yield context
    finally:
        _current.reset(token)


_NOT_ZONES = frozenset({"localtime", "posixrules"})


def resolve_timezone(header_value: str | None) -> str:
    """A valid IANA zone name, or UTC. Never an error, never the server's local zone."""
    if not header_value:
        return "UTC"
    name = header_value.strip()
    # ZoneInfo also accepts file paths relative to the tz database; allow names only.
    if not re.fullmatch(r"[A-Za-z][A-Za-z0-9_+\-]*(/[A-Za-z0-9_+\-]+)*", name):
        return "UTC"
    # Files in the tz database that are not IANA zones; `localtime` is the server's own zone.
    if name in _NOT_ZONES:
        return "UTC"
    try:
        ZoneInfo(name)
    except (ZoneInfoNotFoundError, ValueError, OSError):
        return "UTC"
    return name


def resolve_language(accept_language: str | None, default: str) -> str:
    """The primary language subtag with the highest q-value from `Accept-Language`."""
    if not accept_language:
        return default
    best: tuple[float, str] | None = None
    for position, part in enumerate(accept_language.split(",")):
        pieces = part.strip().split(";")
        tag = pieces[0].strip().lower()
        if not re.fullmatch(r"[a-z]{2,3}(-[a-z0-9]{1,8})*", tag):
            continue
        quality = 1.0
        for parameter in pieces[1:]:
            key, _, value = parameter.strip().partition("=")
            if key == "q":
                try:
                    quality = float(value)
                except ValueError:
                    quality = 0.0
        # Earlier entries win ties, as the header's order expresses preference too.
        candidate = (quality - position * 1e-6, tag.split("-")[0])
        if quality > 0 and (best is None or candidate[0] > best[0]):
            best = candidate
    return best[1] if best else default


def get_request_now(context: RequestContext | None = None) -> datetime:
    """Now, as an aware datetime in the request's time zone (UTC outside a request)."""
    context = context or _current.get()
    zone = ZoneInfo(context.timezone) if context else UTC
    return datetime.now(zone)


def utc_now() -> datetime:
    """Timestamps for storage are always UTC."""
    return datetime.now(UTC)
