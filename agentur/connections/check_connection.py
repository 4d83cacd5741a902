"""A connection's access and its `test` action, whatever its kind (each kind's module says how):
can the server be reached and does it accept the credentials? Nothing is sent or changed
there; the outcome becomes the connection's status."""

from __future__ import annotations

from typing import Any, TypeVar

from agentur.connections.connection_kind import ConnectionKind, connection_kinds, validate_settings
from agentur.connections.graph_client import GraphAccess
from agentur.connections.http_access import HttpAccess
from agentur.connections.kinds import ConnectionSettingsModel
from agentur.connections.mail_client import MailAccess
from agentur.connections.service import ConnectionService, settings_of
from agentur.errors import AgenturError
from agentur.storage.models.connections import Connection

PROBE_BYTES = 1024 * 1024  # a PROPFIND of the base alone

Model = TypeVar("Model", bound=ConnectionSettingsModel)
Access = TypeVar("Access")


def stored_settings(connection: Connection, model: type[Model]) -> Model:
    """The stored settings, validated again: a row saved by an older version that the rules now
    refuse fails here with a clear reason (`InvalidInputError`), before any connect."""
    settings = validate_settings(connection.kind, settings_of(connection))
    assert isinstance(settings, model), (connection.kind, model)
    return settings


def _kind(connection: Connection) -> ConnectionKind:
    kind = connection_kinds().get(connection.kind)
    if kind is None:
        raise AgenturError(f"no {connection.kind} connections here")
    return kind


def open_access(
    service: ConnectionService,
    connection: Connection,
    timeout_seconds: float,
    max_bytes: int,
    expected: type[Access],
) -> Access:
    """The connection's access as its kind builds it, with the secret opened just for it."""
    kind = _kind(connection)
    settings = stored_settings(connection, kind.settings)
    secret = service.credentials(connection).password
    access: Any = kind.access(settings, secret, timeout_seconds, max_bytes)
    if not isinstance(access, expected):
        raise AgenturError(f"connection {connection.id} is a {connection.kind} connection")
    return access


def mail_access(
    service: ConnectionService, connection: Connection, timeout_seconds: float
) -> MailAccess:
    return open_access(service, connection, timeout_seconds, 0, MailAccess)


def http_access(
    service: ConnectionService, connection: Connection, timeout_seconds: float, max_bytes: int
) -> HttpAccess:
    """WebDAV and Jira over basic auth; ClickUp with its token as the Authorization header."""
    return open_access(service, connection, timeout_seconds, max_bytes, HttpAccess)


def graph_access(
    service: ConnectionService, connection: Connection, timeout_seconds: float, max_bytes: int
) -> GraphAccess:
    return open_access(service, connection, timeout_seconds, max_bytes, GraphAccess)


async def check_connection(
    service: ConnectionService, connection: Connection, timeout_seconds: float
) -> str | None:
    """None when the connection works, else the reason (also stored as `last_error`)."""
    error: str | None = None
    try:
        kind = connection_kinds().get(connection.kind)
        if kind is None:
            raise AgenturError(f"no test for {connection.kind} connections yet")
        await kind.check(open_access(service, connection, timeout_seconds, PROBE_BYTES, object))
    except AgenturError as failure:
        error = failure.detail
    await service.record(connection, error)
    return error
