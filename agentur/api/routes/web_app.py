"""The workspace web app: `/` serves the shell page, `/app/...` its modules and CSS.

Static files from the package (no build step, no Node at run time). Every answer carries a
strict Content-Security-Policy: scripts, styles and connections only from this origin, no
inline script, no framing by other sites, no HTML sink fed a string (Trusted Types); `blob:`
frames let the Files screen preview a PDF the app fetched itself. `/app/markdown/...` is the
Markdown renderer the app shares with the visitor widget (`agentur/web/markdown/`)."""

from __future__ import annotations

from pathlib import Path

from fastapi import APIRouter
from fastapi.responses import FileResponse
from starlette.exceptions import HTTPException

WEB_DIR = Path(__file__).resolve().parents[2] / "web"
APP_DIR = WEB_DIR / "app"
# Folders of other parts served under a prefix of /app/ (the app imports them relatively).
SHARED_DIRS = {"markdown": WEB_DIR / "markdown"}
CONTENT_SECURITY_POLICY = "; ".join(
    [
        "default-src 'self'",
        "script-src 'self'",
        "style-src 'self'",
        "img-src 'self' data: blob:",
        "frame-src 'self' blob:",
        "object-src 'none'",
        "base-uri 'none'",
        "form-action 'self'",
        "frame-ancestors 'none'",
        # Trusted Types with no policy: the browser itself refuses any string handed to an
        # HTML or script sink (innerHTML, insertAdjacentHTML, script.src, ...), so markup from
        # data cannot slip in even where a future change forgets textContent.
        "require-trusted-types-for 'script'",
        "trusted-types 'none'",
    ]
)
SECURITY_HEADERS = {
    "Content-Security-Policy": CONTENT_SECURITY_POLICY,
    "X-Content-Type-Options": "nosniff",
    "Referrer-Policy": "no-referrer",
    # Revalidate every time (ETag / Last-Modified answer 304): after an upgrade the browser
    # must not mix cached modules of the old version with new ones.
    "Cache-Control": "no-cache",
}
MEDIA_TYPES = {
    ".js": "text/javascript",
    ".mjs": "text/javascript",
    ".css": "text/css",
    ".html": "text/html",
}

router = APIRouter(include_in_schema=False)


def _serve(path: Path) -> FileResponse:
    return FileResponse(
        path,
        media_type=MEDIA_TYPES.get(path.suffix, "application/octet-stream"),
        headers=SECURITY_HEADERS,
    )


@router.get("/")
async def web_app_page() -> FileResponse:
    return _serve(APP_DIR / "index.html")


@router.get("/app/{asset:path}")
async def web_app_asset(asset: str) -> FileResponse:
    prefix, _, rest = asset.partition("/")
    folder, relative = (SHARED_DIRS[prefix], rest) if prefix in SHARED_DIRS else (APP_DIR, asset)
    # resolve() folds `..` away; anything that lands outside the folder is not ours
    path = (folder / relative).resolve()
    if not path.is_relative_to(folder) or not path.is_file() or path.suffix not in MEDIA_TYPES:
        raise HTTPException(status_code=404, detail=f"no web app file {asset!r}")
    return _serve(path)
