"""Persistence of assistant definitions and their publishable visitor keys, per mandate.

Every query filters by the caller's mandate; an assistant of another mandate answers 404.
Visitor keys read `apk_<lookup>_<secret>`; only the SHA-256 of the secret is stored (the
secret has 256 bits of entropy, so a fast hash is enough), compared in constant time.
"""

from __future__ import annotations

import hashlib
import hmac
import secrets
from dataclasses import dataclass

from sqlalchemy import select
from sqlalchemy.ext.asyncio import AsyncSession

from agentur.assistant.definition import AssistantDefinition
from agentur.errors import AuthenticationError, NotFoundError
from agentur.storage.models.assistant import Assistant, AssistantVisitorKey
from agentur.storage.models.base import utc_now
from agentur.storage.paging import page

VISITOR_PREFIX = "apk"


def stored_document(definition: AssistantDefinition) -> dict:
    """The definition as stored: everything but the catalog credential."""
    data = definition.model_dump(mode="json")
    if data.get("api_catalog"):
        data["api_catalog"]["credential"] = None
    return data


def _hash(secret: str) -> str:
    return hashlib.sha256(secret.encode()).hexdigest()


@dataclass(frozen=True, slots=True)
class VisitorIdentity:
    key_id: str
    assistant_id: str
    mandate_id: str


class AssistantStore:
    def __init__(self, session: AsyncSession, mandate_id: str) -> None:
        self.session = session
        self.mandate_id = mandate_id

    async def get(self, assistant_id: str) -> Assistant:
        row = (
            await self.session.execute(
                select(Assistant).where(
                    Assistant.id == assistant_id, Assistant.mandate_id == self.mandate_id
                )
            )
        ).scalar_one_or_none()
        if row is None:
            raise NotFoundError(f"assistant {assistant_id} not found")
        return row

    async def list(self, limit: int, offset: int) -> list[Assistant]:
        query = (
            select(Assistant)
            .where(Assistant.mandate_id == self.mandate_id)
            .order_by(Assistant.name, Assistant.id)
        )
        rows = await self.session.execute(page(query, limit, offset))
        return list(rows.scalars())

    async def create(
        self, definition: AssistantDefinition, credential_sealed: str | None
    ) -> Assistant:
        row = Assistant(
            mandate_id=self.mandate_id,
            name=definition.name,
            definition=stored_document(definition),
            credential_encrypted=credential_sealed,
        )
        self.session.add(row)
        await self.session.flush()
        return row

    def save(self, row: Assistant, definition: AssistantDefinition) -> None:
        row.name = definition.name
        row.definition = stored_document(definition)

    async def delete(self, assistant_id: str) -> None:
        await self.session.delete(await self.get(assistant_id))

    async def issue_visitor_key(self, assistant_id: str) -> tuple[str, str]:
        assistant = await self.get(assistant_id)
        lookup, secret = secrets.token_hex(8), secrets.token_urlsafe(32)
        row = AssistantVisitorKey(
            mandate_id=self.mandate_id,
            assistant_id=assistant.id,
            lookup_id=lookup,
            secret_hash=_hash(secret),
        )
        self.session.add(row)
        await self.session.flush()
        return row.id, f"{VISITOR_PREFIX}_{lookup}_{secret}"

    async def revoke_visitor_key(self, assistant_id: str, key_id: str) -> None:
        row = (
            await self.session.execute(
                select(AssistantVisitorKey).where(
                    AssistantVisitorKey.id == key_id,
                    AssistantVisitorKey.assistant_id == assistant_id,
                    AssistantVisitorKey.mandate_id == self.mandate_id,
                )
            )
        ).scalar_one_or_none()
        if row is None:
            raise NotFoundError(f"visitor key {key_id} not found")
        row.revoked_at = row.revoked_at or utc_now()


def is_visitor_key(token: str) -> bool:
    return token.startswith(f"{VISITOR_PREFIX}_")


async def authenticate_visitor(session: AsyncSession, plaintext: str) -> VisitorIdentity:
    failure = AuthenticationError("invalid or revoked visitor key")
    prefix, _, rest = plaintext.partition("_")
    lookup, _, secret = rest.partition("_")
    if prefix != VISITOR_PREFIX or not lookup or not secret:
        raise failure
    row = (
        await session.execute(
            select(AssistantVisitorKey).where(AssistantVisitorKey.lookup_id == lookup)
        )
    ).scalar_one_or_none()
    expected = row.secret_hash if row else _hash("")
    if not hmac.compare_digest(expected, _hash(secret)) or row is None or row.revoked_at:
        raise failure
    return VisitorIdentity(row.id, row.assistant_id, row.mandate_id)
