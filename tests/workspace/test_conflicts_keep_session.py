"""A name conflict undoes only the conflicting change: the caller's unit of work goes on.

The agent and other services run several workspace operations in one session; a 409 on one of
them must not poison the others.
"""

from __future__ import annotations

from collections.abc import AsyncIterator

import pytest

from agentur.errors import ConflictError
from agentur.runtime import Runtime
from agentur.workspace.files import FileService
from agentur.workspace.folders import FolderService
from tests.conftest import Tenants


async def _chunks(data: bytes) -> AsyncIterator[bytes]:
    yield data


async def test_file_and_folder_conflicts_leave_the_session_usable(
    runtime: Runtime, tenants: Tenants
) -> None:
    alice = await tenants.member()
    async with runtime.database.session() as session:
        files = FileService(session, runtime.blobs, alice.context, runtime.workspace_limits)
        folders = FolderService(session, alice.context, runtime.settings.max_name_length)
        first = await files.upload("a.txt", _chunks(b"a"))
        await files.upload("b.txt", _chunks(b"b"))
        folder = await folders.create("Docs")
        await folders.create("Other")
        await files.upload("a.txt", _chunks(b"a in docs"), folder_id=folder.id)

        with pytest.raises(ConflictError, match="b.txt"):
            await files.rename(first.id, "b.txt")
        assert first.name == "a.txt"  # the row is readable again and shows the stored name
        with pytest.raises(ConflictError, match="a.txt"):
            await files.move(first.id, folder.id)
        with pytest.raises(ConflictError, match="Other"):
            await folders.rename(folder.id, "Other")
        with pytest.raises(ConflictError, match="Docs"):
            await folders.create("Docs")

        renamed = await files.rename(first.id, "c.txt")
        await files.write_text("d.txt", "more work in the same session")
        await files.commit()

    async with runtime.database.session() as session:
        files = FileService(session, runtime.blobs, alice.context, runtime.workspace_limits)
        listing = await files.list(folder_id="root")
        assert sorted(f.name for f in listing.files) == ["b.txt", "c.txt", "d.txt"]
        assert renamed.id == first.id
        names = [f.name for f in await FolderService(session, alice.context, 255).list()]
        assert names == ["Docs", "Other"]


async def test_a_change_is_undone_by_rolling_back_the_unit_of_work(
    runtime: Runtime, tenants: Tenants
) -> None:
    """On SQLite a savepoint opened before the first write would itself be the transaction,
    and releasing it would commit; the rename must stay undoable until the caller commits."""
    alice = await tenants.member()
    async with runtime.database.session() as session:
        files = FileService(session, runtime.blobs, alice.context, runtime.workspace_limits)
        stored = await files.upload("keep.txt", _chunks(b"k"))
        folder = await FolderService(session, alice.context, 255).create("Box")
        await files.commit()

    async with runtime.database.session() as session:
        files = FileService(session, runtime.blobs, alice.context, runtime.workspace_limits)
        folders = FolderService(session, alice.context, 255)
        await files.rename(stored.id, "renamed.txt")
        await files.move(stored.id, folder.id)
        await folders.rename(folder.id, "Crate")
        await folders.create("Never")
        await session.rollback()

    async with runtime.database.session() as session:
        files = FileService(session, runtime.blobs, alice.context, runtime.workspace_limits)
        again = await files.get(stored.id)
        assert (again.name, again.folder_id) == ("keep.txt", None)
        names = [f.name for f in await FolderService(session, alice.context, 255).list()]
        assert names == ["Box"]
