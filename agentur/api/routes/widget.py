"""The visitor widget's static files: `/widget.js` (the one script a website embeds) and the
ES modules and stylesheet it loads from `/widget/<version>/<file>`.

The embed URL never changes, so `/widget.js` is cached briefly and revalidated by ETag. It
imports the modules under a content hash of the whole widget folder, so those URLs change with
every release and can be cached for a year. The modules are imported from the visitor's page,
i.e. cross-origin, and browsers fetch module scripts in CORS mode: hence
`Access-Control-Allow-Origin: *` (public files, no credentials involved). The Markdown
renderer the widget shares with the web app (`agentur/web/markdown/`) is served under
`/widget/<version>/markdown/`.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from functools import cache
from importlib.resources import files
from importlib.resources.abc import Traversable

from fastapi import APIRouter, Request, Response

from agentur.errors import NotFoundError

router = APIRouter(include_in_schema=False)
LOADER = "widget.js"
VERSION_MARKER = "__WIDGET_VERSION__"  # in widget.js; replaced by the content hash
CONTENT_TYPES = {
    ".js": "text/javascript; charset=utf-8",
    ".mjs": "text/javascript; charset=utf-8",
    ".css": "text/css; charset=utf-8",
}
LOADER_CACHE = "public, max-age=300"  # how long a page may use an old loader
VERSIONED_CACHE = "public, max-age=31536000, immutable"
COMMON_HEADERS = {
    "X-Content-Type-Options": "nosniff",
    "Access-Control-Allow-Origin": "*",
    # Pages that isolate themselves (Cross-Origin-Embedder-Policy) may still load it.
    "Cross-Origin-Resource-Policy": "cross-origin",
}


@dataclass(frozen=True, slots=True)
class WidgetFiles:
    version: str
    contents: dict[str, bytes]  # file path → bytes, the loader with its version filled in

    def etag(self, name: str) -> str:
        return '"' + hashlib.sha256(self.contents[name]).hexdigest()[:32] + '"'


@cache
def widget_files() -> WidgetFiles:
    """Read once: the files are package data and do not change while the server runs."""
    web = files("agentur") / "web"
    raw = dict(_served_files(web / "widget", "")) | dict(
        _served_files(web / "markdown", "markdown/")
    )
    digest = hashlib.sha256()
    for name in sorted(raw):
        digest.update(name.encode() + b"\0" + raw[name] + b"\0")
    version = digest.hexdigest()[:16]
    raw[LOADER] = raw[LOADER].replace(VERSION_MARKER.encode(), version.encode())
    return WidgetFiles(version, raw)


def _served_files(folder: Traversable, prefix: str) -> list[tuple[str, bytes]]:
    """(path under `prefix`, bytes) of the folder's scripts and stylesheets, subfolders too."""
    found: list[tuple[str, bytes]] = []
    for item in folder.iterdir():
        if item.is_dir():
            found += _served_files(item, f"{prefix}{item.name}/")
        elif any(item.name.endswith(suffix) for suffix in CONTENT_TYPES):
            found.append((prefix + item.name, item.read_bytes()))
    return found


def _serve(request: Request, name: str, cache_control: str) -> Response:
    widget = widget_files()
    if name not in widget.contents:
        raise NotFoundError(f"widget file {name} not found")
    etag = widget.etag(name)
    headers = COMMON_HEADERS | {"Cache-Control": cache_control, "ETag": etag}
    if request.headers.get("if-none-match") == etag:
        return Response(status_code=304, headers=headers)
    suffix = name[name.rfind(".") :]
    return Response(widget.contents[name], media_type=CONTENT_TYPES[suffix], headers=headers)


@router.get("/widget.js")
async def widget_loader(request: Request) -> Response:
    """The script tag's target: mounts the chat bubble (see agentur/web/widget/widget.js)."""
    return _serve(request, LOADER, LOADER_CACHE)


@router.get("/widget/{version}/{name:path}")
async def widget_module(version: str, name: str, request: Request) -> Response:
    # An older version's URL (a page still running last release's loader) gets today's
    # files, uncached; mixing them within one page load cannot happen, as the loader
    # imports every module under one version.
    current = version == widget_files().version
    return _serve(request, name, VERSIONED_CACHE if current else "no-cache")
