"""`/widget.js` and the files it loads: content types, caching, CORS for module imports from
other sites, and nothing of it in the OpenAPI document."""

from __future__ import annotations

import re
from importlib.resources import files

import httpx

from agentur.api.routes.widget import VERSION_MARKER, widget_files

WIDGET_FOLDER = files("agentur") / "web" / "widget"


async def test_the_loader_names_the_current_version(client: httpx.AsyncClient) -> None:
    loader = await client.get("/widget.js")
    assert loader.status_code == 200
    assert loader.headers["content-type"] == "text/javascript; charset=utf-8"
    assert loader.headers["cache-control"] == "public, max-age=300"
    assert loader.headers["x-content-type-options"] == "nosniff"
    version = widget_files().version
    assert VERSION_MARKER not in loader.text
    assert f"widget/{version}/" in loader.text
    # Revalidation: the same ETag answers 304 without a body.
    again = await client.get("/widget.js", headers={"If-None-Match": loader.headers["etag"]})
    assert again.status_code == 304 and again.content == b""


async def test_modules_are_immutable_under_their_version(client: httpx.AsyncClient) -> None:
    version = widget_files().version
    main = await client.get(f"/widget/{version}/main.js")
    assert main.status_code == 200
    assert main.headers["content-type"] == "text/javascript; charset=utf-8"
    assert main.headers["cache-control"] == "public, max-age=31536000, immutable"
    # Browsers fetch module scripts in CORS mode, and the importing page is someone else's.
    assert main.headers["access-control-allow-origin"] == "*"
    assert main.content == (WIDGET_FOLDER / "main.js").read_bytes()
    css = await client.get(f"/widget/{version}/widget.css")
    assert css.headers["content-type"] == "text/css; charset=utf-8"
    # Every module the widget imports is served (a missing one would break it on every site).
    for module in WIDGET_FOLDER.iterdir():
        if module.name.endswith(".js"):
            for imported in re.findall(r'from "\./([\w.]+)"', module.read_text()):
                served = await client.get(f"/widget/{version}/{imported}")
                assert served.status_code == 200, f"{module.name} imports {imported}"


async def test_old_versions_and_unknown_files(client: httpx.AsyncClient) -> None:
    old = await client.get("/widget/0123456789abcdef/main.js")
    assert old.status_code == 200 and old.headers["cache-control"] == "no-cache"
    missing = await client.get(f"/widget/{widget_files().version}/secrets.py")
    assert missing.status_code == 404
    assert missing.headers["content-type"].startswith("application/problem+json")
    assert "secrets.py" in missing.json()["detail"]
    traversal = await client.get(f"/widget/{widget_files().version}/..%2F..%2Fconfig.py")
    assert traversal.status_code == 404
    paths = (await client.get("/openapi.json")).json()["paths"]
    assert not [path for path in paths if "widget" in path]


async def test_the_markdown_renderer_is_served_with_the_widget(client: httpx.AsyncClient) -> None:
    """The renderer shared with the web app, and the vendored libraries it imports."""
    version = widget_files().version
    base = f"/widget/{version}/markdown"
    view = await client.get(f"{base}/markdown_view.js")
    assert view.status_code == 200
    renderer = (await client.get(f"{base}/render_markdown.js")).text
    for imported in re.findall(r'from "\./([\w./-]+)"', renderer):
        served = await client.get(f"{base}/{imported}")
        assert served.status_code == 200, imported
        assert served.headers["content-type"] == "text/javascript; charset=utf-8"
        assert served.headers["access-control-allow-origin"] == "*"
    css = await client.get(f"/widget/{version}/widget.css")
    assert '@import url("markdown/markdown.css")' in css.text
    assert (await client.get(f"{base}/markdown.css")).status_code == 200
    # the licences ship in the package but are no widget files
    assert (await client.get(f"{base}/vendor/dompurify/LICENSE")).status_code == 404
