"""Workspace files: upload, list, read, rename, move, tag, copy, delete.

Every query starts from `visible_files(context)`, so a file of another mandate or a colleague's
personal file is simply not found (404), whatever id the caller guesses.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Iterable, Sequence
from dataclasses import dataclass, field

from sqlalchemy import func, select
from sqlalchemy.ext.asyncio import AsyncSession

from agentur.context import RequestContext
from agentur.errors import ConflictError, ForbiddenError, InvalidInputError, NotFoundError
from agentur.storage.blob_store import BlobStore, StoredBlob
from agentur.storage.models import ROOT_FOLDER_KEY, File, FileTag, utc_now
from agentur.storage.unique_change import unique_change
from agentur.workspace import file_rows
from agentur.workspace.file_attributes import OnConflict, mime_type_for, validate_tags
from agentur.workspace.file_listing import FileListing, ListingFilters, list_page
from agentur.workspace.folders import FolderService
from agentur.workspace.names import free_name, validate_name
from agentur.workspace.scopes import Scope, can_change, check_scope_allowed, visible_files
from agentur.workspace.text_window import TextWindow, decode_text, window

__all__ = ["FileListing", "FileService", "OnConflict", "WorkspaceLimits"]

# How often an upload re-decides its name when concurrent uploads keep taking it. N parallel
# uploads of one name need up to N tries (all pick the same next free name; one wins per round).
NAME_RACE_ATTEMPTS = 20


@dataclass(frozen=True, slots=True)
class WorkspaceLimits:
    max_upload_bytes: int
    max_name_length: int
    default_read_window: int
    max_read_window: int


async def _one_chunk(data: bytes) -> AsyncIterator[bytes]:
    yield data


@dataclass(eq=False)
class FileService:
    session: AsyncSession
    blobs: BlobStore
    context: RequestContext
    limits: WorkspaceLimits
    folders: FolderService = field(init=False)
    # Blobs whose last reference this unit of work removed; deleted only after commit,
    # so a rolled-back request never loses bytes a surviving row still points at.
    _released: set[str] = field(init=False, default_factory=set)

    def __post_init__(self) -> None:
        self.folders = FolderService(self.session, self.context, self.limits.max_name_length)

    # --- reading -------------------------------------------------------------------------

    async def get(self, file_id: str) -> File:
        file = (
            await self.session.execute(
                select(File).where(File.id == file_id, visible_files(self.context))
            )
        ).scalar_one_or_none()
        if file is None:
            raise NotFoundError(f"file {file_id} not found")
        return file

    async def list(
        self,
        *,
        folder_id: str | None = None,
        tags: Sequence[str] = (),
        search: str | None = None,
        scope: Scope | None = None,
        limit: int = 100,
        offset: int = 0,
    ) -> FileListing:
        own_only = False
        folder_key = None
        if folder_id is not None:
            folder = await self.folders.resolve_parent(folder_id)
            folder_key = folder.id if folder else ROOT_FOLDER_KEY
            own_only = folder is None  # the top level is per user, like folders
        filters = ListingFilters(
            folder_key=folder_key,
            own_only=own_only,
            tags=tuple(validate_tags(tags)),
            search=search,
            scope=scope.value if scope is not None else None,
        )
        return await list_page(self.session, self.context, filters, limit, offset)

    async def tags_of(self, file_ids: Iterable[str]) -> dict[str, list[str]]:
        return await file_rows.tags_of(self.session, file_ids)

    async def tags_in_use(self, among: Sequence[str] | None = None, limit: int = 30) -> list[str]:
        """Tags of files the caller can see (only those `among`, when given), alphabetically."""
        query = (
            select(FileTag.tag)
            .join(File, File.id == FileTag.file_id)
            .where(visible_files(self.context))
            .distinct()
            .order_by(FileTag.tag)
            .limit(limit)
        )
        if among is not None:
            query = query.where(FileTag.tag.in_(list(among)))
        return list((await self.session.execute(query)).scalars())

    async def read_bytes(self, file_id: str) -> tuple[File, bytes]:
        file = await self.get(file_id)
        return file, self.blobs.read_bytes(file.sha256)

    async def read_text(self, file_id: str) -> tuple[File, str]:
        file, data = await self.read_bytes(file_id)
        return file, decode_text(data, file.mime_type)

    async def read_window(self, file_id: str, offset: int, limit: int | None) -> TextWindow:
        _, text = await self.read_text(file_id)
        return window(
            text, offset, limit or self.limits.default_read_window, self.limits.max_read_window
        )

    # --- writing -------------------------------------------------------------------------

    async def upload(
        self,
        name: str,
        chunks: AsyncIterator[bytes],
        *,
        folder_id: str | None = None,
        tags: Sequence[str] = (),
        scope: Scope = Scope.personal,
        neutralize: bool = False,
        mime_type: str | None = None,
        on_conflict: OnConflict = OnConflict.rename,
    ) -> File:
        self._require_write()
        name = validate_name(name, self.limits.max_name_length)
        if reason := check_scope_allowed(self.context, scope):
            # Who may use a scope is a permission (403); a missing header is bad input (422).
            if scope is Scope.global_:
                raise ForbiddenError(reason)
            raise InvalidInputError(reason)
        tags = validate_tags(tags)
        folder = await self.folders.resolve_parent(folder_id)
        folder_key = folder.id if folder else ROOT_FOLDER_KEY
        existing = await self._own_file_named(folder_key, name)
        self._check_replaceable(existing, name, on_conflict)
        # Everything is validated before the bytes are read, so a bad request stores nothing.
        blob = await self.blobs.put_stream(chunks, self.limits.max_upload_bytes)
        mime_type = mime_type_for(name, mime_type)
        try:
            for attempt in range(1, NAME_RACE_ATTEMPTS + 1):
                try:
                    if existing is not None and on_conflict is OnConflict.replace:
                        return await self._replace_upload(
                            existing, blob, tags, neutralize, mime_type
                        )
                    stored_name = name
                    if existing is not None:
                        stored_name = free_name(name, await self._names_in(folder_key))
                    return await self._create_upload(
                        stored_name, blob, folder_key, tags, scope, neutralize, mime_type
                    )
                except ConflictError:
                    # A concurrent upload took the name between our check and our insert:
                    # decide again, as if it had been there from the start.
                    if attempt == NAME_RACE_ATTEMPTS:
                        raise
                    existing = await self._own_file_named(folder_key, name)
                    self._check_replaceable(existing, name, on_conflict)
            raise AssertionError("unreachable")
        except Exception:
            if not await self._is_referenced(blob.sha256):
                self.blobs.release(blob.sha256, written_ns=blob.written_ns)
            raise

    def _check_replaceable(self, existing: File | None, name: str, on_conflict: OnConflict) -> None:
        if existing is not None and on_conflict is OnConflict.fail:
            raise ConflictError(f"a file named {name!r} exists already in this folder")
        if existing is not None and not can_change(self.context, existing):
            raise ForbiddenError(f"you may not replace {name!r}")

    async def _replace_upload(
        self, existing: File, blob: StoredBlob, tags: list[str], neutralize: bool, mime_type: str
    ) -> File:
        old_sha = existing.sha256
        existing.sha256, existing.size, existing.mime_type = blob.sha256, blob.size, mime_type
        existing.neutralize = existing.neutralize or neutralize
        await self._replace_tags(existing.id, tags or await self._tag_list(existing.id))
        await self.session.flush()
        if old_sha != blob.sha256:
            self.release_blobs([old_sha])
        return existing

    async def _create_upload(
        self,
        name: str,
        blob: StoredBlob,
        folder_key: str,
        tags: list[str],
        scope: Scope,
        neutralize: bool,
        mime_type: str,
    ) -> File:
        file = File(
            mandate_id=self.context.mandate_id,
            owner_id=self.context.user_id,
            folder_id=None if folder_key == ROOT_FOLDER_KEY else folder_key,
            folder_key=folder_key,
            feature_instance_id=self.context.feature_instance_id,
            name=name,
            scope=scope.value,
            neutralize=neutralize,
            size=blob.size,
            mime_type=mime_type,
            sha256=blob.sha256,
        )
        async with unique_change(self.session, f"a file named {name!r} exists already here"):
            self.session.add(file)
        await self._replace_tags(file.id, tags)
        return file

    async def write_text(
        self, name: str, text: str, *, folder_id: str | None = None, **options: object
    ) -> File:
        """Create a text file from a string (the agent's write path)."""
        return await self.write_bytes(name, text.encode(), folder_id=folder_id, **options)

    async def write_bytes(
        self, name: str, data: bytes, *, folder_id: str | None = None, **options: object
    ) -> File:
        """Create a file from bytes a tool produced (sandbox output, rendered documents)."""
        return await self.upload(
            name,
            _one_chunk(data),
            folder_id=folder_id,
            **options,  # type: ignore[arg-type]
        )

    async def replace_content(self, file_id: str, data: bytes) -> File:
        file = await self._changeable(file_id, owner_only=False)
        blob = await self.blobs.put_stream(_one_chunk(data), self.limits.max_upload_bytes)
        old_sha = file.sha256
        file.sha256, file.size = blob.sha256, blob.size
        await self.session.flush()
        self.release_blobs([old_sha])
        return file

    async def rename(self, file_id: str, new_name: str) -> File:
        file = await self._changeable(file_id)
        name = validate_name(new_name, self.limits.max_name_length)
        conflict = f"a file named {name!r} exists already here"
        if await self._name_taken(file, file.folder_key, name):
            raise ConflictError(conflict)
        async with unique_change(self.session, conflict, file):
            file.name = name
        return file

    async def move(self, file_id: str, folder_id: str | None) -> File:
        file = await self._changeable(file_id, owner_only=True)
        folder = await self.folders.resolve_parent(folder_id)
        folder_key = folder.id if folder else ROOT_FOLDER_KEY
        conflict = f"a file named {file.name!r} exists already in the target folder"
        if await self._name_taken(file, folder_key, file.name):
            raise ConflictError(conflict)
        async with unique_change(self.session, conflict, file):
            file.folder_id = folder.id if folder else None
            file.folder_key = folder_key
        return file

    async def set_tags(self, file_id: str, tags: Sequence[str]) -> list[str]:
        file = await self._changeable(file_id)
        clean = validate_tags(tags)
        await self._replace_tags(file.id, clean)
        file.updated_at = utc_now()  # a tag change changes the file's metadata
        return sorted(clean)

    async def copy(
        self, file_id: str, *, folder_id: str | None = None, name: str | None = None
    ) -> File:
        """An independent copy owned by the caller; equal bytes share one blob."""
        self._require_write()
        source = await self.get(file_id)
        if folder_id is None and source.owner_id == self.context.user_id:
            folder_key = source.folder_key
        else:
            folder = await self.folders.resolve_parent(folder_id)
            folder_key = folder.id if folder else ROOT_FOLDER_KEY
        target_name = validate_name(
            source.name if name is None else name, self.limits.max_name_length
        )
        target_name = free_name(target_name, await self._names_in(folder_key))
        scope = source.scope
        if check_scope_allowed(self.context, Scope(scope)):
            scope = Scope.personal.value
        copy = File(
            mandate_id=self.context.mandate_id,
            owner_id=self.context.user_id,
            folder_id=None if folder_key == ROOT_FOLDER_KEY else folder_key,
            folder_key=folder_key,
            feature_instance_id=self.context.feature_instance_id,
            name=target_name,
            scope=scope,
            # The copy inherits the data-at-rest neutralization duty of its source.
            neutralize=source.neutralize,
            size=source.size,
            mime_type=source.mime_type,
            sha256=source.sha256,
        )
        conflict = f"a file named {target_name!r} exists already here"
        async with unique_change(self.session, conflict):
            self.session.add(copy)
        await self._replace_tags(copy.id, await self._tag_list(source.id))
        return copy

    async def delete(self, file_id: str) -> None:
        file = await self._changeable(file_id)
        sha = file.sha256
        await self.session.delete(file)
        await self.session.flush()
        self.release_blobs([sha])

    def release_blobs(self, hashes: Iterable[str]) -> None:
        """Mark blobs whose references this unit of work removed; see `commit`."""
        self._released.update(hashes)

    async def commit(self) -> None:
        """Commit, then release blobs that no file row references any more."""
        await self.session.commit()
        released, self._released = self._released, set()
        for sha in released:
            if not await self._is_referenced(sha):
                self.blobs.release(sha)

    async def _is_referenced(self, sha: str) -> bool:
        count = await self.session.scalar(
            select(func.count()).select_from(File).where(File.sha256 == sha)
        )
        return bool(count)

    # --- helpers -------------------------------------------------------------------------

    async def _changeable(self, file_id: str, *, owner_only: bool = False) -> File:
        file = await self.get(file_id)
        if not can_change(self.context, file, owner_only=owner_only):
            raise ForbiddenError(
                "you may read this file but not change it"
                + (" (only its owner may move it)" if owner_only else "")
            )
        return file

    def _require_write(self) -> None:
        if not self.context.can_write:
            raise ForbiddenError("your role in this mandate is read-only")

    async def own_file_named(self, name: str, folder_id: str | None = None) -> File | None:
        """The caller's own file of exactly this name in the folder (None: the top level)."""
        folder = await self.folders.resolve_parent(folder_id)
        return await self._own_file_named(folder.id if folder else ROOT_FOLDER_KEY, name)

    async def _own_file_named(self, folder_key: str, name: str) -> File | None:
        context = self.context
        return await file_rows.file_named(
            self.session, context.mandate_id, context.user_id, folder_key, name
        )

    async def _name_taken(self, file: File, folder_key: str, name: str) -> bool:
        """Whether another file of `file`'s owner has `name` in that folder."""
        other = await file_rows.file_named(
            self.session, file.mandate_id, file.owner_id, folder_key, name
        )
        return other is not None and other.id != file.id

    async def _tag_list(self, file_id: str) -> list[str]:
        return (await self.tags_of([file_id]))[file_id]

    async def _replace_tags(self, file_id: str, tags: Iterable[str]) -> None:
        await file_rows.replace_tags(self.session, file_id, tags)

    async def _names_in(self, folder_key: str) -> set[str]:
        context = self.context
        return await file_rows.names_in(
            self.session, context.mandate_id, context.user_id, folder_key
        )
