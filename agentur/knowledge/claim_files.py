"""Claiming files for indexing: a claim is a lease on the file's index row (status `indexing`,
`claimed_by`, `claimed_at`), so stateless workers sharing one PostgreSQL database split the work.

Small files are claimed several at a time in one transaction: for a one-sentence file the claim
itself used to cost as much as embedding it. Large files are claimed one by one, right before
their turn, so their lease does not run down while other files are worked on.
"""

from __future__ import annotations

from collections.abc import Collection
from dataclasses import dataclass
from datetime import datetime, timedelta

from sqlalchemy import select
from sqlalchemy.exc import IntegrityError
from sqlalchemy.ext.asyncio import AsyncSession
from sqlalchemy.orm.exc import StaleDataError

from agentur.context import utc_now
from agentur.knowledge.write_index import (
    FAILED,
    INDEXED,
    INDEXING,
    Claim,
    IndexOutcome,
    index_row,
)
from agentur.storage.database import Database
from agentur.storage.models import File
from agentur.storage.models.knowledge import NO_TEXT, FileContentIndex


@dataclass(frozen=True, slots=True)
class ClaimRules:
    worker_id: str
    config_key: str
    lease: timedelta


def is_current(index: FileContentIndex, file: File, config_key: str) -> bool:
    return (
        index.status in (INDEXED, FAILED, NO_TEXT)
        and index.content_sha256 == file.sha256
        and index.config_key == config_key
        and index.scope == file.scope
    )


def claim_row(
    session: AsyncSession,
    file: File,
    index: FileContentIndex | None,
    rules: ClaimRules,
    *,
    force: bool,
    now: datetime,
) -> Claim | IndexOutcome:
    """Takes the lease on `file`'s index row (creating the row) unless the index is current or
    another worker's lease on it is still running."""
    if index is not None and not force and is_current(index, file, rules.config_key):
        return IndexOutcome(file.id, "unchanged", index.chunk_count)
    if (
        index is not None
        and index.status == INDEXING
        and index.claimed_by != rules.worker_id
        and index.claimed_at is not None
        and index.claimed_at > now - rules.lease
    ):
        return IndexOutcome(file.id, "busy")
    if index is None:
        index = FileContentIndex(file_id=file.id, mandate_id=file.mandate_id, chunk_count=0)
        session.add(index)
    index.owner_id, index.scope = file.owner_id, file.scope
    index.feature_instance_id = file.feature_instance_id
    index.status, index.claimed_by, index.claimed_at = INDEXING, rules.worker_id, now
    index.chunks_total = index.chunks_done = index.progress_started_at = None
    return Claim(
        file.id,
        file.name,
        file.mime_type,
        file.sha256,
        file.size,
        file.neutralize,
        file.mandate_id,
        file.owner_id,
        file.scope,
    )


async def claim_file(
    database: Database, file_id: str, rules: ClaimRules, *, force: bool
) -> Claim | IndexOutcome:
    try:
        async with database.transaction() as session:
            file = await session.get(File, file_id)
            if file is None:
                return IndexOutcome(file_id, "gone")
            index = await index_row(session, file_id)
            return claim_row(session, file, index, rules, force=force, now=utc_now())
    except IntegrityError:  # another worker inserted the row first, or the file went
        return IndexOutcome(file_id, "busy")
    except StaleDataError:  # the file (and its index row) was deleted meanwhile
        return IndexOutcome(file_id, "gone")


async def claim_small_files(
    database: Database,
    file_ids: Collection[str],
    rules: ClaimRules,
    *,
    force: bool,
    max_bytes: int,
) -> dict[str, Claim | IndexOutcome]:
    """Claims, in one transaction, those of `file_ids` that are at most `max_bytes` large and
    need no neutralization (both go through the batched build). Files missing from the answer
    are claimed one by one with `claim_file`, which also sorts out every race: if any row of
    the batch conflicts (another worker inserted an index row first, a file vanished), the
    whole batch rolls back and the answer is empty."""
    if len(file_ids) < 2:
        return {}
    now = utc_now()
    try:
        async with database.transaction() as session:
            files = (
                await session.execute(
                    select(File).where(
                        File.id.in_(file_ids), File.size <= max_bytes, File.neutralize.is_(False)
                    )
                )
            ).scalars()
            indexes = {
                index.file_id: index
                for index in (
                    await session.execute(
                        select(FileContentIndex).where(FileContentIndex.file_id.in_(file_ids))
                    )
                ).scalars()
            }
            claims = {
                file.id: claim_row(session, file, indexes.get(file.id), rules, force=force, now=now)
                for file in files
            }
            await session.flush()
            return claims
    except (IntegrityError, StaleDataError):
        return {}
