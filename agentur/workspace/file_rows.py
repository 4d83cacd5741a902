"""Row-level lookups FileService builds on: a page of a listing, a file's tags, and the names an
owner already uses in a folder (names are unique per owner and folder). Callers have already
scoped access; these only read and write rows."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from sqlalchemy import ScalarSelect, Select, delete, func, select
from sqlalchemy.ext.asyncio import AsyncSession

from agentur.storage.models import File, FileTag
from agentur.storage.paging import page


@dataclass(frozen=True, slots=True)
class FileListing:
    files: list[File]
    total: int
    tags: dict[str, list[str]]  # per file id, sorted


async def list_page(
    session: AsyncSession, query: Select[Any], limit: int, offset: int
) -> FileListing:
    """One page of `query` (a `select(File)` with its filters), ordered by name. One statement
    per page: the total rides along as a window count and each file's tags as one joined string."""
    rows = (
        await session.execute(
            page(
                query.add_columns(
                    func.count().over().label("total"), joined_tags().label("tags")
                ).order_by(File.name, File.id),
                limit,
                offset,
            )
        )
    ).all()
    if rows:
        return FileListing(
            files=[row[0] for row in rows],
            total=int(rows[0].total),
            tags={row[0].id: split_tags(row.tags) for row in rows},
        )
    total = 0  # an empty page: count apart only when it lies past the end
    if offset:
        total = await session.scalar(select(func.count()).select_from(query.subquery()))
    return FileListing(files=[], total=int(total or 0), tags={})


# Tags never contain control characters (file_attributes.TAG_PATTERN), so this one joins them.
TAG_SEPARATOR = "\x1f"


def joined_tags() -> ScalarSelect[str | None]:
    """A column of a `File` query: the row's tags in one string (see `split_tags`), so a
    listing needs no second query for them (group_concat on SQLite, string_agg on PostgreSQL)."""
    return (
        select(func.aggregate_strings(FileTag.tag, TAG_SEPARATOR))
        .where(FileTag.file_id == File.id)
        .scalar_subquery()
    )


def split_tags(joined: str | None) -> list[str]:
    return sorted(joined.split(TAG_SEPARATOR)) if joined else []


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
