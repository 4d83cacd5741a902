"""Swagger UI at `/docs`, served entirely from this server: the page and its start script from
the package, Swagger UI's bundle and stylesheet from `fastapi-offline` (which ships the
swagger-ui-dist release files), so the API docs work without internet.

The page gets its own Content-Security-Policy: scripts and connections from this origin only
(the OpenAPI document, and the requests "Try it out" sends with the key from Authorize),
styles from this origin, images also as `data:` (Swagger UI's icons). Unlike the workspace
app's policy there are no Trusted Types: Swagger UI renders the document's Markdown
descriptions through innerHTML."""

from __future__ import annotations

from importlib.resources import files
from pathlib import Path

from fastapi import APIRouter
from fastapi.responses import FileResponse
from starlette.exceptions import HTTPException

PAGE_DIR = Path(__file__).resolve().parents[2] / "web" / "api_docs"
SWAGGER_UI_DIR = Path(str(files("fastapi_offline") / "static"))
ASSETS = {
    "start.js": PAGE_DIR / "start.js",
    "swagger-ui-bundle.js": SWAGGER_UI_DIR / "swagger-ui-bundle.js",
    "swagger-ui.css": SWAGGER_UI_DIR / "swagger-ui.css",
    "favicon.png": SWAGGER_UI_DIR / "favicon.png",
}
MEDIA_TYPES = {".js": "text/javascript", ".css": "text/css", ".png": "image/png"}
CONTENT_SECURITY_POLICY = "; ".join(
    [
        "default-src 'none'",
        "script-src 'self'",
        "style-src 'self'",
        "img-src 'self' data:",
        "connect-src 'self'",
        "base-uri 'self'",
        "form-action 'self'",
        "frame-ancestors 'none'",
    ]
)
SECURITY_HEADERS = {
    "Content-Security-Policy": CONTENT_SECURITY_POLICY,
    "X-Content-Type-Options": "nosniff",
    "Referrer-Policy": "no-referrer",
    "Cache-Control": "no-cache",  # revalidated: an upgrade brings a new Swagger UI
}

router = APIRouter(include_in_schema=False)


@router.get("/docs")
async def api_docs_page() -> FileResponse:
    return FileResponse(PAGE_DIR / "index.html", media_type="text/html", headers=SECURITY_HEADERS)


@router.get("/docs/assets/{name}")
async def api_docs_asset(name: str) -> FileResponse:
    path = ASSETS.get(name)
    if path is None:
        raise HTTPException(status_code=404, detail=f"no API docs file {name!r}")
    return FileResponse(path, media_type=MEDIA_TYPES[path.suffix], headers=SECURITY_HEADERS)
