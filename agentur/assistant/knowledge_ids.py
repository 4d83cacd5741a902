"""An assistant's knowledge may only name files and folders of its own mandate (or global
files): an id of another mandate, or of nothing, is refused instead of silently finding nothing.
Both answer alike, so the refusal does not tell whether another mandate has such an id."""

from __future__ import annotations

from collections.abc import Iterable

from sqlalchemy import or_, select
from sqlalchemy.ext.asyncio import AsyncSession

from agentur.assistant.definition import KnowledgeScope
from agentur.errors import InvalidInputError
from agentur.storage.models import File, Folder
from agentur.workspace.scopes import Scope

SHOWN_IDS = 5  # unknown ids named in the message


def _refuse(field: str, wanted: set[str], found: Iterable[str]) -> None:
    unknown = sorted(wanted - set(found))
    if unknown:
        shown = ", ".join(unknown[:SHOWN_IDS]) + (" …" if len(unknown) > SHOWN_IDS else "")
        raise InvalidInputError(f"knowledge.{field}: not in this mandate: {shown}")


async def check_knowledge_ids(
    session: AsyncSession, mandate_id: str, scope: KnowledgeScope
) -> None:
    """InvalidInputError naming the ids of `scope` that are not the mandate's."""
    if files := set(scope.file_ids):
        found = await session.scalars(
            select(File.id).where(
                File.id.in_(files),
                or_(File.mandate_id == mandate_id, File.scope == Scope.global_.value),
            )
        )
        _refuse("file_ids", files, found)
    if folders := set(scope.folder_ids):
        found = await session.scalars(
            select(Folder.id).where(Folder.id.in_(folders), Folder.mandate_id == mandate_id)
        )
        _refuse("folder_ids", folders, found)
