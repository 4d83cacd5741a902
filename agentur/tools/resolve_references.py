"""File and folder references in tool arguments: an id, or an unambiguous name or path.

Models often pass what they were shown — a file's name ("notes.txt") or its path
("Projekte/Seeblick/budget.md") — where an id is asked for. Before any tool runs, the lifecycle
wrapper hands its arguments here: every argument that holds a workspace file id (`file_id`,
`file_ids`, `…_file_id`, `…_file_ids`) or folder id (`folder_id`, `parent_id`) keeps a
known id as it is, gets a name or path that names exactly one visible file or own folder
replaced by its id — and the result says which (`Resolution`) — as does text that holds
exactly one such id (small models copy a whole context line: "notes.txt (file_id 3f2a…)"),
and otherwise fails with an error that lists the closest candidates with their ids. So an
unknown id is an error, never a filter that silently matches nothing. Tools of remote MCP
servers keep their arguments: their `file_id` means whatever that server means.
"""

from __future__ import annotations

import difflib
from dataclasses import dataclass
from typing import Any

from sqlalchemy import select

from agentur.errors import NotFoundError
from agentur.storage.models import File
from agentur.storage.models.workspace import Folder
from agentur.tools.tool import Tool, ToolContext
from agentur.workspace.scopes import visible_files

FOLDER_KEYS = frozenset({"folder_id", "parent_id"})
TOP_LEVEL = frozenset({"", "root", "/"})
# JSON null written as a string (seen from a 1.5B model: `"folder_id": "null"`): no reference.
NULL_WORDS = frozenset({"null", "none", "nil", "undefined"})
MAX_CANDIDATES = 5
MAX_NAMES = 5_000  # visible files compared by name when a reference is not an id
UNRESOLVED_TOOLBOXES = frozenset({"mcp"})


@dataclass(frozen=True, slots=True)
class Resolution:
    argument: str
    given: str
    id: str
    name: str

    def as_dict(self) -> dict[str, str]:
        return {"argument": self.argument, "given": self.given, "id": self.id, "name": self.name}


def _kind(key: str) -> str | None:
    if key in ("file_id", "file_ids") or key.endswith(("_file_id", "_file_ids")):
        return "file"
    return "folder" if key in FOLDER_KEYS else None


@dataclass(frozen=True, slots=True)
class _Entry:
    id: str
    name: str
    path: str  # folder names and the name, joined by "/"


async def resolve_references(
    tool: Tool, arguments: dict[str, Any], context: ToolContext
) -> tuple[dict[str, Any], list[Resolution]]:
    """`arguments` with names and paths replaced by ids, and what was replaced."""
    if tool.toolbox in UNRESOLVED_TOOLBOXES or context.runtime is None:
        return arguments, []
    arguments = {
        key: None
        if _kind(key) and isinstance(value, str) and value.strip().lower() in NULL_WORDS
        else value
        for key, value in arguments.items()
    }
    wanted: dict[str, set[str]] = {"file": set(), "folder": set()}
    for key, value in arguments.items():
        if (kind := _kind(key)) is None:
            continue
        for item in value if isinstance(value, list) else [value]:
            if isinstance(item, str) and item.strip().lower() not in TOP_LEVEL:
                wanted[kind].add(item)
    if not wanted["file"] and not wanted["folder"]:
        return arguments, []
    async with context.runtime.database.session() as session:
        folders = {
            row.id: row
            for row in (
                await session.execute(
                    select(Folder.id, Folder.name, Folder.parent_id).where(
                        Folder.mandate_id == context.request.mandate_id,
                        Folder.owner_id == context.request.user_id,
                    )
                )
            ).all()
        }
        known_files: set[str] = set()
        file_entries: list[_Entry] = []
        if wanted["file"]:
            known_files = set(
                (
                    await session.execute(
                        select(File.id).where(
                            File.id.in_(wanted["file"]), visible_files(context.request)
                        )
                    )
                ).scalars()
            )
            if wanted["file"] - known_files:
                rows = await session.execute(
                    select(File.id, File.name, File.folder_id)
                    .where(visible_files(context.request))
                    .order_by(File.updated_at.desc())
                    .limit(MAX_NAMES)
                )
                file_entries = [_Entry(i, n, _path(folders, f, n)) for i, n, f in rows.all()]
    folder_entries = [
        _Entry(i, r.name, _path(folders, r.parent_id, r.name)) for i, r in folders.items()
    ]  # noqa: E501
    known = {"file": known_files, "folder": set(folders)}
    entries = {"file": file_entries, "folder": folder_entries}
    resolutions: list[Resolution] = []
    resolved = dict(arguments)
    for key, value in arguments.items():
        if (kind := _kind(key)) is None:
            continue

        def one(item: Any, key: str = key, kind: str = kind) -> Any:
            if not isinstance(item, str) or item.strip().lower() in TOP_LEVEL:
                return item
            if item in known[kind]:
                return item
            entry = _match(kind, key, item, entries[kind])
            resolutions.append(Resolution(key, item, entry.id, entry.path))
            return entry.id

        resolved[key] = [one(v) for v in value] if isinstance(value, list) else one(value)
    return resolved, resolutions


def _path(folders: dict[str, Any], folder_id: str | None, name: str) -> str:
    parts, seen = [name], set()
    while folder_id and folder_id in folders and folder_id not in seen:
        seen.add(folder_id)
        parts.append(folders[folder_id].name)
        folder_id = folders[folder_id].parent_id
    return "/".join(reversed(parts))


def _match(kind: str, key: str, given: str, entries: list[_Entry]) -> _Entry:
    wanted = given.strip().strip("/").lower()
    by_path = [e for e in entries if e.path.lower() == wanted]
    by_name = [e for e in entries if e.name.lower() == wanted]
    by_end = [e for e in entries if e.path.lower().endswith("/" + wanted)]
    by_id_inside = [e for e in entries if e.id in given]
    for found in (by_path, by_name, by_end, by_id_inside):
        if len(found) == 1:
            return found[0]
        if len(found) > 1:
            raise NotFoundError(
                f"{key}: {given!r} names {len(found)} {kind}s — pass one of their ids: "
                + _listed(found)
            )
    names = [e.path for e in entries] + [e.name for e in entries]
    close = difflib.get_close_matches(wanted, [n.lower() for n in names], MAX_CANDIDATES, 0.4)
    candidates = [e for e in entries if e.path.lower() in close or e.name.lower() in close]
    hint = (
        "closest: " + _listed(candidates[:MAX_CANDIDATES])
        if candidates
        else f"list_{kind}s shows the ids"
    )
    raise NotFoundError(
        f"{key}: {kind} {given} not found (no {kind} you can see has this id, name or path); "
        + hint
    )


def _listed(entries: list[_Entry]) -> str:
    return "; ".join(f"{e.path} (id {e.id})" for e in entries[:MAX_CANDIDATES])
