"""The web app's files as served: the shell page with a strict CSP, its modules with a
JavaScript media type, and nothing outside the app folder."""

from __future__ import annotations

import httpx
import pytest

from agentur.api.routes.web_app import APP_DIR, SHARED_DIRS


async def test_shell_page_has_a_strict_content_security_policy(client: httpx.AsyncClient) -> None:
    response = await client.get("/")
    assert response.status_code == 200
    assert response.headers["content-type"].startswith("text/html")
    policy = response.headers["content-security-policy"]
    assert "default-src 'self'" in policy and "script-src 'self'" in policy
    assert "unsafe-inline" not in policy and "frame-ancestors 'none'" in policy
    for directive in ("object-src 'none'", "base-uri 'none'", "form-action 'self'"):
        assert directive in policy
    assert "require-trusted-types-for 'script'" in policy and "trusted-types 'none'" in policy
    assert response.headers["x-content-type-options"] == "nosniff"
    assert response.headers["referrer-policy"] == "no-referrer"
    assert '<html lang="en">' in response.text
    assert '<script type="module" src="/app/app.js">' in response.text
    assert "<script>" not in response.text  # no inline script: the CSP would refuse it


async def test_every_module_is_served_as_javascript(client: httpx.AsyncClient) -> None:
    modules = sorted(APP_DIR.rglob("*.js"))
    assert {"app.js", "api.js", "i18n.js", "files.js", "search.js", "usage.js"} <= {
        path.name for path in modules
    }
    for path in modules:
        response = await client.get(f"/app/{path.relative_to(APP_DIR).as_posix()}")
        assert response.status_code == 200, path
        assert response.headers["content-type"].startswith("text/javascript"), path
        assert response.text == path.read_text(encoding="utf-8")
    styles = await client.get("/app/styles.css")
    assert styles.headers["content-type"].startswith("text/css")


async def test_the_shared_markdown_renderer_is_served_under_app(
    client: httpx.AsyncClient,
) -> None:
    folder = SHARED_DIRS["markdown"]
    scripts = sorted([*folder.rglob("*.js"), *folder.rglob("*.mjs")])
    assert {"render_markdown.js", "purify.es.mjs", "markdown-it.esm.min.mjs"} <= {
        path.name for path in scripts
    }
    for path in scripts:
        response = await client.get(f"/app/markdown/{path.relative_to(folder).as_posix()}")
        assert response.status_code == 200, path
        assert response.headers["content-type"].startswith("text/javascript"), path
        assert "trusted-types 'none'" in response.headers["content-security-policy"]
    assert (await client.get("/app/markdown/vendor/README.md")).status_code == 404


@pytest.mark.parametrize(
    "path",
    [
        "/app/missing.js",
        "/app/%2e%2e/api/app.py",
        "/app/..%2f..%2fpyproject.toml",
        "/app/screens",
        "/app/markdown/..%2f..%2fapi/app.py",
        "/app/markdown/%2e%2e/widget/widget.js",
    ],
)
async def test_nothing_outside_the_app_folder(client: httpx.AsyncClient, path: str) -> None:
    response = await client.get(path)
    assert response.status_code == 404, response.text
    assert "import" not in response.text
