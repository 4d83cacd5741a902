"""How tools reach a connection: found through `ConnectionService` (the caller's own and their
mandate's shared ones only), credentials opened just for the call, blocking protocol work in a
worker thread."""

from __future__ import annotations

import asyncio
import imaplib
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import asynccontextmanager, suppress
from dataclasses import dataclass
from typing import Any, TypeVar

from pydantic import BaseModel

from agentur.connections.check_connection import graph_access, http_access, mail_access
from agentur.connections.graph_client import GraphAccess
from agentur.connections.http_access import HttpAccess
from agentur.connections.mail_client import MailAccess, open_imap
from agentur.connections.reach import pinned_address
from agentur.connections.service import ConnectionService, credentials_box
from agentur.connections.settings import ConnectionSettings
from agentur.errors import InvalidInputError
from agentur.storage.models.connections import Connection
from agentur.tools.tool import Tool, ToolContext

Result = TypeVar("Result")
SourceArgs = TypeVar("SourceArgs", bound="SourceArguments")


class SourceArguments(BaseModel):
    """What every tool on an HTTP source names: the connection (default: the caller's one of
    the tool's kind)."""

    connection_id: str | None = None


def source_tool(
    name: str,
    description: str,
    arguments: type[SourceArgs],
    call: Callable[[HttpAccess, SourceArgs], Awaitable[dict[str, Any]]],
    **flags: Any,
) -> Tool[SourceArgs]:
    """A tool of the kind its `toolbox` names: `call` on the connection's access, answered with
    the connection's id and what `call` returns."""
    kind = flags["toolbox"]

    async def handler(args: SourceArgs, context: ToolContext) -> dict[str, Any]:
        source = await source_connection(context, args.connection_id, kind)
        return {"connection_id": source.connection.id, **await call(source.access, args)}

    return Tool(name, description, arguments, handler, **flags)


@asynccontextmanager
async def connection_service(context: ToolContext) -> AsyncIterator[ConnectionService]:
    runtime = context.runtime
    async with runtime.database.session() as session:
        box = credentials_box(runtime.settings)
        yield ConnectionService(session, context.request, box, runtime.all_settings.connections)


async def pick_connection(
    service: ConnectionService, kind: str, connection_id: str | None
) -> Connection:
    if connection_id:
        connection = await service.get(connection_id)
        if connection.kind != kind:
            raise InvalidInputError(f"connection {connection_id} is a {connection.kind} connection")
        return connection
    candidates = await service.list(kind)
    if len(candidates) == 1:
        return candidates[0]
    if not candidates:
        raise InvalidInputError(f"you have no {kind} connection")
    ids = ", ".join(f"{c.id} ({c.display_name})" for c in candidates)
    raise InvalidInputError(f"several {kind} connections; pass connection_id, one of: {ids}")


@dataclass(frozen=True, slots=True)
class MailConnection:
    connection: Connection
    access: MailAccess
    limits: ConnectionSettings


async def mail_connection(context: ToolContext, connection_id: str | None) -> MailConnection:
    async with connection_service(context) as service:
        connection = await pick_connection(service, "mail", connection_id)
        limits = service.settings
        access = mail_access(service, connection, limits.connection_timeout_seconds)
    return MailConnection(connection, access, limits)


@dataclass(frozen=True, slots=True)
class SourceConnection:
    connection: Connection
    access: HttpAccess


async def source_connection(
    context: ToolContext, connection_id: str | None, kind: str = "webdav"
) -> SourceConnection:
    """An HTTP source (WebDAV, Jira); transfers are capped by the workspace's upload limit."""
    async with connection_service(context) as service:
        connection = await pick_connection(service, kind, connection_id)
        timeout = service.settings.connection_timeout_seconds
        max_bytes = context.runtime.settings.max_upload_bytes
        return SourceConnection(connection, http_access(service, connection, timeout, max_bytes))


async def graph_connection(
    context: ToolContext, connection_id: str | None
) -> tuple[Connection, GraphAccess]:
    async with connection_service(context) as service:
        connection = await pick_connection(service, "microsoft", connection_id)
        timeout = service.settings.connection_timeout_seconds
        max_bytes = context.runtime.settings.max_upload_bytes
        return connection, graph_access(service, connection, timeout, max_bytes)


async def with_imap(mail: MailConnection, work: Callable[[imaplib.IMAP4], Result]) -> Result:
    address = await pinned_address(mail.access.settings.imap_target, mail.access.timeout_seconds)

    def run() -> Result:
        imap = open_imap(mail.access, address)
        try:
            return work(imap)
        finally:
            with suppress(OSError, imaplib.IMAP4.error):
                imap.logout()

    return await asyncio.to_thread(run)


async def shown_fields(
    context: ToolContext, connection: Connection, data: dict[str, Any], fields: tuple[str, ...]
) -> dict[str, Any]:
    """`data` as the model may see it: from a connection marked `neutralize`, the named text
    fields carry the workflow's placeholders instead of personal data."""
    if not connection.neutralize:
        return data
    shown = dict(data)
    for name in fields:
        if isinstance(shown.get(name), str) and shown[name]:
            shown[name] = await context.runtime.ai.neutralize_text(
                shown[name], context.request, workflow_id=context.workflow_id
            )
    return shown
