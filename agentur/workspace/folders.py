"""Folders: each member has their own tree inside the mandate."""

from __future__ import annotations

from sqlalchemy import delete, select
from sqlalchemy.ext.asyncio import AsyncSession

from agentur.context import RequestContext
from agentur.errors import ConflictError, ForbiddenError, InvalidInputError, NotFoundError
from agentur.storage.models import ROOT_FOLDER_KEY, File, Folder
from agentur.storage.unique_change import unique_change
from agentur.workspace.names import validate_name


class FolderService:
    def __init__(self, session: AsyncSession, context: RequestContext, max_name_length: int):
        self.session = session
        self.context = context
        self.max_name_length = max_name_length

    def _own(self):  # type: ignore[no-untyped-def]
        return select(Folder).where(
            Folder.mandate_id == self.context.mandate_id, Folder.owner_id == self.context.user_id
        )

    async def get(self, folder_id: str) -> Folder:
        folder = (await self.session.execute(self._own().where(Folder.id == folder_id))).scalar()
        if folder is None:
            raise NotFoundError(f"folder {folder_id} not found")
        return folder

    async def resolve_parent(self, folder_id: str | None) -> Folder | None:
        """The caller's folder for `folder_id`, None for the root."""
        if folder_id in (None, "", ROOT_FOLDER_KEY):
            return None
        return await self.get(folder_id)

    async def list(self, parent_id: str | None = None) -> list[Folder]:
        parent = await self.resolve_parent(parent_id)
        key = parent.id if parent else ROOT_FOLDER_KEY
        rows = await self.session.execute(
            self._own().where(Folder.parent_key == key).order_by(Folder.name)
        )
        return list(rows.scalars())

    async def create(self, name: str, parent_id: str | None = None) -> Folder:
        self._require_write()
        name = validate_name(name, self.max_name_length, "folder")
        parent = await self.resolve_parent(parent_id)
        folder = Folder(
            mandate_id=self.context.mandate_id,
            owner_id=self.context.user_id,
            parent_id=parent.id if parent else None,
            parent_key=parent.id if parent else ROOT_FOLDER_KEY,
            name=name,
        )
        conflict = f"a folder named {name!r} exists already there"
        if await self._name_taken(folder.parent_key, name):
            raise ConflictError(conflict)
        async with unique_change(self.session, conflict):
            self.session.add(folder)
        return folder

    async def rename(self, folder_id: str, name: str) -> Folder:
        self._require_write()
        folder = await self.get(folder_id)
        name = validate_name(name, self.max_name_length, "folder")
        conflict = f"a folder named {name!r} exists already there"
        if await self._name_taken(folder.parent_key, name, folder.id):
            raise ConflictError(conflict)
        async with unique_change(self.session, conflict, folder):
            folder.name = name
        return folder

    async def move(self, folder_id: str, parent_id: str | None) -> Folder:
        self._require_write()
        folder = await self.get(folder_id)
        parent = await self.resolve_parent(parent_id)
        if parent is not None and folder.id in await self._ancestor_ids(parent):
            raise InvalidInputError("a folder cannot be moved into itself or its subfolders")
        parent_key = parent.id if parent else ROOT_FOLDER_KEY
        conflict = f"a folder named {folder.name!r} exists already in the target"
        if await self._name_taken(parent_key, folder.name, folder.id):
            raise ConflictError(conflict)
        async with unique_change(self.session, conflict, folder):
            folder.parent_id = parent.id if parent else None
            folder.parent_key = parent_key
        return folder

    async def delete(self, folder_id: str, *, recursive: bool = False) -> list[str]:
        """Delete the folder; returns the sha256 of every file removed with it."""
        self._require_write()
        folder = await self.get(folder_id)
        tree = await self.descendant_ids(folder.id)
        files = (
            await self.session.execute(select(File.id, File.sha256).where(File.folder_id.in_(tree)))
        ).all()
        if not recursive and (files or len(tree) > 1):
            raise ConflictError(
                f"folder {folder.name!r} is not empty; delete it with recursive=true"
            )
        await self.session.execute(delete(File).where(File.folder_id.in_(tree)))
        # Children first, so the self-reference never points at a deleted row.
        for descendant in reversed(tree):
            await self.session.execute(delete(Folder).where(Folder.id == descendant))
        await self.session.flush()
        return [sha for _, sha in files]

    async def descendant_ids(self, folder_id: str) -> list[str]:
        """The folder and everything below it, parents before children."""
        order = [folder_id]
        frontier = [folder_id]
        while frontier:
            children = (
                (
                    await self.session.execute(
                        self._own()
                        .with_only_columns(Folder.id)
                        .where(Folder.parent_id.in_(frontier))
                    )
                )
                .scalars()
                .all()
            )
            order.extend(children)
            frontier = list(children)
        return order

    async def _ancestor_ids(self, folder: Folder) -> set[str]:
        seen = {folder.id}
        current = folder
        while current.parent_id is not None:
            current = await self.get(current.parent_id)
            seen.add(current.id)
        return seen

    async def _name_taken(self, parent_key: str, name: str, except_id: str | None = None) -> bool:
        query = self._own().with_only_columns(Folder.id)
        query = query.where(Folder.parent_key == parent_key, Folder.name == name)
        if except_id is not None:
            query = query.where(Folder.id != except_id)
        return await self.session.scalar(query) is not None

    def _require_write(self) -> None:
        if not self.context.can_write:
            raise ForbiddenError("your role in this mandate is read-only")
