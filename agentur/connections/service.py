"""Connections of one caller: their personal ones plus their mandate's shared ones. Every query
is bound to the caller's mandate; shared connections are changed by mandate admins only.
Settings naming a server the egress rule refuses are not saved (422)."""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from sqlalchemy import or_, select
from sqlalchemy.ext.asyncio import AsyncSession

from agentur.config import Settings
from agentur.connections.connection_kind import validate_settings
from agentur.connections.kinds import ConnectionSettingsModel, Credentials
from agentur.connections.reach import check_saved_targets
from agentur.connections.settings import ConnectionSettings
from agentur.context import RequestContext
from agentur.errors import ForbiddenError, NotFoundError
from agentur.names import clean_name
from agentur.secrets_box import SecretsBox
from agentur.storage.models.connections import Connection

MAX_ERROR_CHARS = 500


def credentials_box(settings: Settings) -> SecretsBox:
    """The same key that seals API-catalog credentials."""
    return SecretsBox.from_settings(settings.assistant_secret_key, settings.data_dir)


@dataclass(frozen=True, slots=True)
class ConnectionChange:
    display_name: str | None = None
    settings: dict[str, Any] | None = None
    credentials: Credentials | None = None
    neutralize: bool | None = None


class ConnectionService:
    def __init__(
        self,
        session: AsyncSession,
        context: RequestContext,
        box: SecretsBox,
        settings: ConnectionSettings,
    ):
        self.session = session
        self.context = context
        self.box = box
        self.settings = settings

    def _visible(self):  # type: ignore[no-untyped-def]
        return select(Connection).where(
            Connection.mandate_id == self.context.mandate_id,
            or_(Connection.owner_id == self.context.user_id, Connection.owner_id.is_(None)),
        )

    async def list(self, kind: str | None = None) -> list[Connection]:
        query = self._visible().order_by(Connection.display_name, Connection.id)
        if kind:
            query = query.where(Connection.kind == kind)
        return list((await self.session.execute(query)).scalars())

    async def get(self, connection_id: str) -> Connection:
        query = self._visible().where(Connection.id == connection_id)
        connection = (await self.session.execute(query)).scalar_one_or_none()
        if connection is None:
            raise NotFoundError(f"connection {connection_id} not found")
        return connection

    def _require_change(self, shared: bool) -> None:
        if not self.context.can_write:
            raise ForbiddenError("your role may not change connections")
        if shared and not self.context.is_mandate_admin:
            raise ForbiddenError("only mandate admins manage shared connections")

    async def create(
        self,
        kind: str,
        display_name: str,
        settings: dict[str, Any],
        credentials: Credentials,
        *,
        shared: bool = False,
        neutralize: bool = False,
    ) -> Connection:
        self._require_change(shared)
        checked = await self._checked_settings(kind, settings)
        connection = Connection(
            mandate_id=self.context.mandate_id,
            owner_id=None if shared else self.context.user_id,
            kind=kind,
            display_name=clean_name(display_name, "display_name"),
            settings_json=checked.model_dump_json(),
            sealed_credentials=self.box.seal_text(credentials.model_dump_json()),
            neutralize=neutralize,
            status="untested",
        )
        self.session.add(connection)
        await self.session.flush()
        return connection

    async def change(self, connection_id: str, change: ConnectionChange) -> Connection:
        connection = await self.get(connection_id)
        self._require_change(connection.owner_id is None)
        if change.display_name is not None:
            connection.display_name = clean_name(change.display_name, "display_name")
        if change.settings is not None:
            merged = {**settings_of(connection), **change.settings}
            checked = await self._checked_settings(connection.kind, merged)
            connection.settings_json = checked.model_dump_json()
        if change.credentials is not None:
            connection.sealed_credentials = self.box.seal_text(change.credentials.model_dump_json())
        if change.neutralize is not None:
            connection.neutralize = change.neutralize
        if change.settings is not None or change.credentials is not None:
            connection.status, connection.last_error = "untested", None
        await self.session.flush()
        return connection

    async def delete(self, connection_id: str) -> None:
        connection = await self.get(connection_id)
        self._require_change(connection.owner_id is None)
        await self.session.delete(connection)
        await self.session.flush()

    def credentials(self, connection: Connection) -> Credentials:
        return Credentials.model_validate_json(self.box.open_text(connection.sealed_credentials))

    async def record(self, connection: Connection, error: str | None) -> None:
        connection.status = "failed" if error else "ok"
        connection.last_error = error[:MAX_ERROR_CHARS] if error else None
        await self.session.flush()

    async def commit(self) -> None:
        await self.session.commit()

    async def _checked_settings(
        self, kind: str, settings: dict[str, Any]
    ) -> ConnectionSettingsModel:
        checked = validate_settings(kind, settings)
        await check_saved_targets(kind, checked, self.settings.connection_timeout_seconds)
        return checked


def settings_of(connection: Connection) -> dict[str, Any]:
    return json.loads(connection.settings_json)


def describe(connection: Connection) -> dict[str, Any]:
    """What callers and the model may see: never the credentials."""
    return {
        "id": connection.id,
        "kind": connection.kind,
        "display_name": connection.display_name,
        "shared": connection.owner_id is None,
        "settings": settings_of(connection),
        "neutralize": connection.neutralize,
        "status": connection.status,
        "last_error": connection.last_error,
    }
