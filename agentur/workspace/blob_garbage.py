"""Sweep file bytes that no file references any more and that are past the grace period.

Deletes leave bytes behind when they were put recently (see BlobStore.release); this sweep,
run by `agentur serve` at start and by `agentur blobs gc`, removes them once they are stale.
"""

from __future__ import annotations

from sqlalchemy import select

from agentur.storage.blob_store import BlobStore
from agentur.storage.database import Database
from agentur.storage.models import File


async def sweep_unreferenced_blobs(database: Database, blobs: BlobStore) -> int:
    """Remove stale unreferenced blobs; returns how many went."""
    async with database.session() as session:
        referenced = set(await session.scalars(select(File.sha256).distinct()))
    # An upload committing after the query above re-put its bytes first, which makes them
    # fresh again, and `release` keeps fresh bytes.
    return sum(blobs.release(sha) for sha in blobs.unreferenced_stale(referenced))
