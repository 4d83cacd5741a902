"""Workspace file tools. Every call goes through `FileService`, so tenant and scope checks
are exactly those of the HTTP API: a file id of another tenant is simply not found."""

from __future__ import annotations

import re
from enum import StrEnum
from typing import Any

from pydantic import BaseModel, Field, model_validator

from agentur.errors import ConflictError, InvalidInputError, NotFoundError
from agentur.storage.models import File
from agentur.tools.text_input import document_text
from agentur.tools.tool import Tool, ToolContext
from agentur.tools.workspace_access import change_files, file_service, shown_text
from agentur.workspace.file_attributes import validate_tags
from agentur.workspace.files import FileService, OnConflict
from agentur.workspace.line_search import query_words, whole_query_lines, word_lines
from agentur.workspace.text_window import NotTextError, decode_text
from agentur.workspace.text_window import window as text_window

MAX_LINES = 2_000
MAX_SEARCH_FILES = 200
MAX_SEARCH_FILE_BYTES = 5 * 1024 * 1024
MAX_MATCH_LINE_CHARS = 300


def describe(file: File, tags: list[str] | None = None) -> dict[str, Any]:
    data: dict[str, Any] = {
        "file_id": file.id,
        "name": file.name,
        "folder_id": file.folder_id,
        "size": file.size,
        "mime_type": file.mime_type,
        "scope": file.scope,
    }
    if tags is not None:
        data["tags"] = tags
    return data


# --- read_file -------------------------------------------------------------------------------


class ReadFileArguments(BaseModel):
    file_id: str
    offset: int = Field(default=0, ge=0, description="Character offset (character mode).")
    limit: int | None = Field(
        default=None, ge=1, description="Characters to read (more than the largest window read it)."
    )
    start_line: int | None = Field(
        default=None, ge=1, description="First line, 1-based; selects line mode."
    )
    line_count: int = Field(default=200, ge=1, le=MAX_LINES, description="Lines (line mode).")


async def _read_text(context: ToolContext, file_id: str) -> tuple[File, str, bool]:
    """The file's text and whether it is already as the model may see it: a text file as it
    is (neutralized per window, below), any other file as its extracted document text."""
    async with file_service(context) as files:
        try:
            file, text = await files.read_text(file_id)
            return file, text, False
        except NotTextError:
            pass
    found = await document_text(context, file_id)
    return found.file, found.text, True


async def read_file(args: ReadFileArguments, context: ToolContext) -> dict[str, Any]:
    file, text, shown = await _read_text(context, args.file_id)

    async def show(part: str) -> str:
        return part if shown else await shown_text(context, file, part)

    if args.start_line is None:
        limits = context.runtime.workspace_limits
        # A model asks for "everything" with limits like 1,000,000 (a 1.5B model did, twice,
        # and failed on the error): it gets the largest window, and `next_offset` says more.
        wanted = args.limit or limits.default_read_window
        window = text_window(
            text, args.offset, min(wanted, limits.max_read_window), limits.max_read_window
        )
        lowered = {"limit_lowered_to": window.limit} if wanted > window.limit else {}
        return {
            **describe(file),
            "content": await show(window.content),
            "offset": window.offset,
            "total_length": window.total_length,
            "next_offset": window.next_offset,
            **lowered,
        }
    lines = text.splitlines(keepends=True)
    first = args.start_line - 1
    chosen = lines[first : first + args.line_count]
    end_line = first + len(chosen)
    return {
        **describe(file),
        "content": await show("".join(chosen)),
        "start_line": args.start_line,
        "total_lines": len(lines),
        "total_length": len(text),
        "next_start_line": end_line + 1 if end_line < len(lines) else None,
    }


# --- list_files ------------------------------------------------------------------------------


class ListFilesArguments(BaseModel):
    folder_id: str | None = Field(
        default=None, description="Omit for files in every folder; 'root' for the top level."
    )
    tags: list[str] = Field(default_factory=list, description="Files having all these tags.")
    search: str | None = Field(default=None, description="Part of the file name.")
    limit: int = Field(default=50, ge=1, le=500)
    offset: int = Field(default=0, ge=0)


async def list_files(args: ListFilesArguments, context: ToolContext) -> dict[str, Any]:
    async with file_service(context) as files:
        listing = await files.list(
            folder_id=args.folder_id,
            tags=args.tags,
            search=args.search,
            limit=args.limit,
            offset=args.offset,
        )
        if listing.total == 0 and args.tags:
            await _check_tags(files, args.tags)
        tags = await files.tags_of(f.id for f in listing.files)
    return {
        "files": [describe(f, tags[f.id]) for f in listing.files],
        "total": listing.total,
        "offset": args.offset,
        "next_offset": args.offset + len(listing.files)
        if args.offset + len(listing.files) < listing.total
        else None,
    }


async def _check_tags(files: FileService, tags: list[str]) -> None:
    """A tag no visible file has is an error naming the tags in use (seen from a 1.5B model:
    a file's name passed as a tag, and an empty listing it then made up a result for)."""
    wanted = validate_tags(tags)
    known = set(await files.tags_in_use(among=wanted))
    if unknown := [tag for tag in wanted if tag not in known]:
        in_use = ", ".join(await files.tags_in_use()) or "none"
        raise NotFoundError(
            f"no file you can see has the tag(s) {', '.join(unknown)}; tags in use: {in_use}. "
            "To find a file by its name, use `search`."
        )


# --- search_in_file_content ------------------------------------------------------------------


class SearchInFileContentArguments(BaseModel):
    query: str = Field(min_length=1, max_length=500)
    file_ids: list[str] = Field(default_factory=list, description="Only these files.")
    folder_id: str | None = None
    case_sensitive: bool = False
    max_matches: int = Field(default=50, ge=1, le=500)


async def search_in_file_content(
    args: SearchInFileContentArguments, context: ToolContext
) -> dict[str, Any]:
    skipped: list[str] = []
    texts: list[tuple[File, str]] = []
    async with file_service(context) as files:
        if args.file_ids:
            candidates = [await files.get(file_id) for file_id in args.file_ids]
        else:
            listing = await files.list(folder_id=args.folder_id, limit=MAX_SEARCH_FILES)
            candidates = listing.files
        for file in candidates:
            if file.size > MAX_SEARCH_FILE_BYTES:
                skipped.append(file.name)
                continue
            try:
                texts.append(
                    (file, decode_text(files.blobs.read_bytes(file.sha256), file.mime_type))
                )
            except InvalidInputError:
                continue  # not text; document readers handle those
    found = [
        (file, match)
        for file, text in texts
        for match in whole_query_lines(text, args.query, case_sensitive=args.case_sensitive)
    ]
    words = query_words(args.query) if not found else ()
    if len(words) > 1:  # no line holds the whole query: the lines holding most of its words
        found = [(file, match) for file, text in texts for match in word_lines(text, words)]
        found.sort(key=lambda item: -len(item[1].words))
    shown = found[: args.max_matches]
    result: dict[str, Any] = {
        "matches": [
            {
                "file_id": file.id,
                "name": file.name,
                "line": match.number,
                "text": await shown_text(context, file, match.line[:MAX_MATCH_LINE_CHARS]),
                **({"words": list(match.words)} if match.words else {}),
            }
            for file, match in shown
        ],
        "searched_files": len(candidates),
        "limit_reached": len(found) >= args.max_matches,
        "skipped_large_files": skipped,
    }
    if shown and words:
        result["note"] = "no line holds the whole query; these lines hold some of its words"
    return result


# --- write_file ------------------------------------------------------------------------------


class WriteMode(StrEnum):
    create = "create"
    append = "append"
    overwrite = "overwrite"


class WriteFileArguments(BaseModel):
    content: str
    mode: WriteMode = WriteMode.create
    name: str | None = Field(default=None, description="File name (create; or to find the file).")
    file_id: str | None = Field(default=None, description="The file to append to or overwrite.")
    folder_id: str | None = None

    @model_validator(mode="after")
    def _target(self) -> WriteFileArguments:
        if self.mode is WriteMode.create and not self.name:
            raise ValueError("mode 'create' needs a name")
        if self.mode is not WriteMode.create and not (self.file_id or self.name):
            raise ValueError(f"mode {self.mode.value!r} needs a file_id or a name")
        return self


async def write_file(args: WriteFileArguments, context: ToolContext) -> dict[str, Any]:
    """`create` fails when the name is taken. `append` and `overwrite` change the file named by
    id, or by name in the folder — and create it when no such file exists yet, as appending to
    or overwriting a path does everywhere else (models ask for `overwrite` of a new file)."""
    async with file_service(context) as files:
        target = None
        if args.mode is not WriteMode.create:
            target = (
                await files.get(args.file_id)
                if args.file_id
                else await files.own_file_named(args.name or "", args.folder_id)
            )
        if target is None:
            try:
                file = await files.write_text(
                    args.name or "",
                    args.content,
                    folder_id=args.folder_id,
                    on_conflict=OnConflict.fail,
                )
            except ConflictError as error:
                raise ConflictError(
                    f"{error.detail}; use mode 'overwrite' or 'append', or another name"
                ) from error
        else:
            text = args.content
            if args.mode is WriteMode.append:
                text = (await files.read_text(target.id))[1] + args.content
            file = await files.replace_content(target.id, text.encode())
        await files.commit()
        return {
            **describe(file),
            "mode": args.mode.value,
            "created": target is None,
            "written_characters": len(args.content),
        }


# --- changes by id ---------------------------------------------------------------------------


class FileIdArguments(BaseModel):
    file_id: str


async def delete_file(args: FileIdArguments, context: ToolContext) -> dict[str, Any]:
    async with file_service(context) as files:
        file = await files.get(args.file_id)
        name = file.name
        await files.delete(args.file_id)
        await files.commit()
    return {"deleted": True, "file_id": args.file_id, "name": name}


class RenameFileArguments(BaseModel):
    file_id: str
    new_name: str


async def rename_file(args: RenameFileArguments, context: ToolContext) -> dict[str, Any]:
    return describe(await change_files(context, lambda f: f.rename(args.file_id, args.new_name)))


class MoveFileArguments(BaseModel):
    file_id: str
    folder_id: str | None = Field(description="Target folder; null or 'root' for the top level.")


async def move_file(args: MoveFileArguments, context: ToolContext) -> dict[str, Any]:
    return describe(await change_files(context, lambda f: f.move(args.file_id, args.folder_id)))


class TagMode(StrEnum):
    set = "set"
    add = "add"
    remove = "remove"


class TagFileArguments(BaseModel):
    file_id: str
    tags: list[str]
    mode: TagMode = TagMode.set


async def tag_file(args: TagFileArguments, context: ToolContext) -> dict[str, Any]:
    async with file_service(context) as files:
        current = set((await files.tags_of([(await files.get(args.file_id)).id]))[args.file_id])
        wanted = {
            TagMode.set: set(args.tags),
            TagMode.add: current | set(args.tags),
            TagMode.remove: current - set(args.tags),
        }[args.mode]
        tags = await files.set_tags(args.file_id, sorted(wanted))
        await files.commit()
    return {"file_id": args.file_id, "tags": tags}


class CopyFileArguments(BaseModel):
    file_id: str
    folder_id: str | None = None
    name: str | None = None


async def copy_file(args: CopyFileArguments, context: ToolContext) -> dict[str, Any]:
    copy = await change_files(
        context, lambda f: f.copy(args.file_id, folder_id=args.folder_id, name=args.name)
    )
    return {**describe(copy), "copied_from": args.file_id}


class ReplaceInFileArguments(BaseModel):
    file_id: str
    search: str = Field(min_length=1)
    replacement: str
    regex: bool = False
    count: int = Field(default=0, ge=0, description="Replace at most this many; 0 = all.")


async def replace_in_file(args: ReplaceInFileArguments, context: ToolContext) -> dict[str, Any]:
    try:
        pattern = re.compile(args.search if args.regex else re.escape(args.search))
    except re.error as error:
        raise InvalidInputError(f"search is not a valid regular expression: {error}") from error
    async with file_service(context) as files:
        _, text = await files.read_text(args.file_id)
        new_text, replaced = pattern.subn(args.replacement, text, count=args.count)
        if replaced == 0:
            raise InvalidInputError(f"{args.search!r} does not occur in the file; nothing changed")
        file = await files.replace_content(args.file_id, new_text.encode())
        await files.commit()
        return {**describe(file), "replacements": replaced}


TOOLS: list[Tool] = [
    Tool("read_file", "Read a file's text — a text file as it is, a PDF, DOCX, XLSX or scan as "
         "its extracted text: a character window (offset/limit) or lines "
         "(start_line/line_count); always reports the total length.",
         ReadFileArguments, read_file, read_only=True),
    Tool("list_files", "List workspace files: all, or filtered by folder, tags and name.",
         ListFilesArguments, list_files, read_only=True),
    Tool("search_in_file_content", "Find lines containing a text in workspace text files.",
         SearchInFileContentArguments, search_in_file_content, read_only=True),
    Tool("write_file", "Create a text file, or append to / overwrite one (created if new).",
         WriteFileArguments, write_file),
    Tool("delete_file", "Delete a file.", FileIdArguments, delete_file),
    Tool("rename_file", "Rename a file.", RenameFileArguments, rename_file),
    Tool("move_file", "Move a file to another folder.", MoveFileArguments, move_file),
    Tool("tag_file", "Set, add or remove tags of a file.", TagFileArguments, tag_file),
    Tool("copy_file", "Make an independent copy of a file.", CopyFileArguments, copy_file),
    Tool("replace_in_file", "Replace text (or a regular expression) in a text file.",
         ReplaceInFileArguments, replace_in_file),
]  # fmt: skip
