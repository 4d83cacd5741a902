"""Row-level lookups FileService builds on: a file's tags, and the names an owner already uses
in a folder (names are unique per owner and folder). Callers have already scoped access; these
only read and write rows."""

from __future__ import annotations

from collections.abc import Iterable

from sqlalchemy import delete, select
from sqlalchemy.ext.asyncio import AsyncSession

from agentur.storage.models import File, FileTag


async def tags_of(session: AsyncSession, file_ids: Iterable[str]) -> dict[str, list[str]]:
    ids = list(file_ids)
    result: dict[str, list[str]] = {file_id: [] for file_id in ids}
    if ids:
        rows = await session.execute(
            select(FileTag.file_id, FileTag.tag)
            .where(FileTag.file_id.in_(ids))
            .order_by(FileTag.tag)
        )
        for file_id, tag in rows:
            result[file_id].append(tag)
    return result


async def replace_tags(session: AsyncSession, file_id: str, tags: Iterable[str]) -> None:
    await session.execute(delete(FileTag).where(FileTag.file_id == file_id))
    session.add_all(FileTag(file_id=file_id, tag=tag) for tag in set(tags))
    await session.flush()


async def file_named(
    session: AsyncSession, mandate_id: str, owner_id: str, folder_key: str, name: str
) -> File | None:
    query = select(File).where(
        File.mandate_id == mandate_id,
        File.owner_id == owner_id,
        File.folder_key == folder_key,
        File.name == name,
    )
    return (await session.execute(query)).scalar_one_or_none()


async def names_in(
    session: AsyncSession, mandate_id: str, owner_id: str, folder_key: str
) -> set[str]:
    rows = await session.execute(
        select(File.name).where(
            File.mandate_id == mandate_id,
            File.owner_id == owner_id,
            File.folder_key == folder_key,
        )
    )
    return set(rows.scalars())
