"""The `test` action: can the connection's server be reached and does it accept the
credentials? Nothing is sent or changed there; the outcome becomes the connection's status."""

from __future__ import annotations

import asyncio
import imaplib
from contextlib import suppress
from typing import TypeVar

from agentur.connections.clickup_client import check as check_clickup
from agentur.connections.graph_client import GraphAccess
from agentur.connections.graph_client import check as check_graph
from agentur.connections.http_access import HttpAccess
from agentur.connections.jira_client import check as check_jira
from agentur.connections.kinds import (
    ConnectionSettingsModel,
    MailSettings,
    McpSettings,
    MicrosoftSettings,
    UrlSettings,
    validate_settings,
)
from agentur.connections.mail_client import MailAccess, check_smtp, open_imap
from agentur.connections.mcp_client import McpAccess
from agentur.connections.mcp_client import check as check_mcp
from agentur.connections.reach import pinned_address
from agentur.connections.service import ConnectionService, settings_of
from agentur.connections.webdav_client import check as check_dav
from agentur.errors import AgenturError
from agentur.storage.models.connections import Connection

PROBE_BYTES = 1024 * 1024  # a PROPFIND of the base alone


Model = TypeVar("Model", bound=ConnectionSettingsModel)


def stored_settings(connection: Connection, model: type[Model]) -> Model:
    """The stored settings, validated again: a row saved by an older version that the rules now
    refuse fails here with a clear reason (`InvalidInputError`), before any connect."""
    settings = validate_settings(connection.kind, settings_of(connection))
    assert isinstance(settings, model), (connection.kind, model)
    return settings


def mail_access(
    service: ConnectionService, connection: Connection, timeout_seconds: float
) -> MailAccess:
    settings = stored_settings(connection, MailSettings)
    return MailAccess(settings, service.credentials(connection).password, timeout_seconds)


def http_access(
    service: ConnectionService, connection: Connection, timeout_seconds: float, max_bytes: int
) -> HttpAccess:
    """WebDAV (username + password) and Jira (account e-mail + API token) over basic auth;
    ClickUp with its token as the Authorization header."""
    settings = stored_settings(connection, UrlSettings)
    username = getattr(settings, "username", "") or getattr(settings, "email", "")
    password = service.credentials(connection).password
    base_url = settings.base_url.rstrip("/") + "/"
    token_header = connection.kind == "clickup"
    return HttpAccess(base_url, username, password, timeout_seconds, max_bytes, token_header)


def graph_access(
    service: ConnectionService, connection: Connection, timeout_seconds: float, max_bytes: int
) -> GraphAccess:
    settings = stored_settings(connection, MicrosoftSettings)
    secret = service.credentials(connection).password
    return GraphAccess(settings, secret, timeout_seconds, max_bytes)


async def _check_mail(access: MailAccess) -> None:
    settings = access.settings
    timeout = access.timeout_seconds
    imap_address = await pinned_address(settings.imap_target, timeout)
    smtp_address = await pinned_address(settings.smtp_target, timeout)

    def run() -> None:
        imap = open_imap(access, imap_address)
        with suppress(OSError, imaplib.IMAP4.error):
            imap.logout()
        check_smtp(access, smtp_address)

    await asyncio.to_thread(run)


async def check_connection(
    service: ConnectionService, connection: Connection, timeout_seconds: float
) -> str | None:
    """None when the connection works, else the reason (also stored as `last_error`)."""
    error: str | None = None
    try:
        if connection.kind == "mail":
            await _check_mail(mail_access(service, connection, timeout_seconds))
        elif connection.kind == "webdav":
            await check_dav(http_access(service, connection, timeout_seconds, PROBE_BYTES))
        elif connection.kind == "jira":
            await check_jira(http_access(service, connection, timeout_seconds, PROBE_BYTES))
        elif connection.kind == "clickup":
            await check_clickup(http_access(service, connection, timeout_seconds, PROBE_BYTES))
        elif connection.kind == "microsoft":
            await check_graph(graph_access(service, connection, timeout_seconds, PROBE_BYTES))
        elif connection.kind == "mcp":
            url = stored_settings(connection, McpSettings).url
            token = service.credentials(connection).password
            await check_mcp(McpAccess(url, token, timeout_seconds))
        else:
            raise AgenturError(f"no test for {connection.kind} connections yet")
    except AgenturError as failure:
        error = failure.detail
    await service.record(connection, error)
    return error
