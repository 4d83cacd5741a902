"""WebDAV (RFC 4918) over the egress module: PROPFIND to list, GET to download, PUT to upload.
Paths are relative to the connection's base URL and can never leave it. Responses are capped
by the egress policy; XML is parsed by the standard library (its expat refuses entity
expansion attacks since Python 3.7.1)."""

from __future__ import annotations

import posixpath
from dataclasses import dataclass
from typing import Any
from urllib.parse import quote, unquote, urlsplit
from xml.etree import ElementTree

from agentur.connections.http_access import HttpAccess, SourceError, send
from agentur.errors import InvalidInputError, NotFoundError

DAV = "{DAV:}"
PROPFIND_BODY = (
    b'<?xml version="1.0" encoding="utf-8"?><d:propfind xmlns:d="DAV:"><d:prop>'
    b"<d:resourcetype/><d:getcontentlength/><d:getcontenttype/><d:getlastmodified/>"
    b"</d:prop></d:propfind>"
)


def clean_path(path: str) -> str:
    """`a/b.txt` or `/a/b/` → a path below the base, without `..` or empty segments."""
    parts = [part for part in path.replace("\\", "/").split("/") if part not in ("", ".")]
    if ".." in parts:
        raise InvalidInputError("a data source path may not contain '..'")
    return "/".join(parts)


def url_for(access: HttpAccess, path: str, *, folder: bool = False) -> str:
    cleaned = clean_path(path)
    suffix = "/" if folder and cleaned else ""
    return access.base_url + quote(cleaned) + suffix


@dataclass(frozen=True, slots=True)
class Entry:
    path: str
    name: str
    is_folder: bool
    size: int | None
    content_type: str | None
    modified: str | None

    def as_dict(self) -> dict[str, Any]:
        return {
            "path": self.path, "name": self.name, "is_folder": self.is_folder,
            "size": self.size, "content_type": self.content_type, "modified": self.modified,
        }  # fmt: skip


def _check(status: int, method: str, path: str) -> None:
    if status == 404:
        raise NotFoundError(f"{path or '/'} does not exist in the data source")
    if status in (401, 403):
        raise SourceError(f"the data source refused {method} {path or '/'} ({status})")
    if status >= 300:
        raise SourceError(f"{method} {path or '/'} failed with HTTP {status}")


async def list_folder(access: HttpAccess, path: str, depth: int = 1) -> list[Entry]:
    """The entries directly in `path` (depth 1), or `path` itself (depth 0)."""
    url = url_for(access, path, folder=True)
    status, body = await send(
        access, "PROPFIND", url, content=PROPFIND_BODY,
        headers={"Depth": str(depth), "Content-Type": "application/xml"},
    )  # fmt: skip
    _check(status, "PROPFIND", path)
    if status != 207:
        raise SourceError(f"PROPFIND {path or '/'} answered {status}, not 207 Multi-Status")
    entries = _parse_multistatus(access, body)
    own = clean_path(path)
    return [entry for entry in entries if entry.path != own] if depth else entries


def _parse_multistatus(access: HttpAccess, body: bytes) -> list[Entry]:
    try:
        root = ElementTree.fromstring(body)
    except ElementTree.ParseError as error:
        raise SourceError(f"the data source sent invalid XML: {error}") from error
    base_path = urlsplit(access.base_url).path
    entries: list[Entry] = []
    for response in root.iter(f"{DAV}response"):
        href = unquote(urlsplit(response.findtext(f"{DAV}href", "")).path)
        if not href.startswith(base_path.rstrip("/")):
            continue  # not below the base: ignore rather than trust
        relative = clean_path(href[len(base_path) :] if href.startswith(base_path) else "")
        prop = response.find(f"{DAV}propstat/{DAV}prop")
        is_folder = prop is not None and prop.find(f"{DAV}resourcetype/{DAV}collection") is not None
        length = prop.findtext(f"{DAV}getcontentlength") if prop is not None else None
        entries.append(
            Entry(
                path=relative,
                name=posixpath.basename(relative) or "/",
                is_folder=is_folder,
                size=int(length) if length and length.isdigit() else None,
                content_type=prop.findtext(f"{DAV}getcontenttype") if prop is not None else None,
                modified=prop.findtext(f"{DAV}getlastmodified") if prop is not None else None,
            )
        )
    return entries


async def download(access: HttpAccess, path: str) -> tuple[bytes, str]:
    status, body = await send(access, "GET", url_for(access, path))
    _check(status, "GET", path)
    return body, posixpath.basename(clean_path(path))


async def upload(access: HttpAccess, path: str, data: bytes, content_type: str) -> int:
    if not clean_path(path):
        raise InvalidInputError("give the target path of the file, not the base folder")
    status, _ = await send(
        access, "PUT", url_for(access, path), content=data, headers={"Content-Type": content_type}
    )
    _check(status, "PUT", path)
    return status


async def check(access: HttpAccess) -> None:
    await list_folder(access, "", depth=0)
