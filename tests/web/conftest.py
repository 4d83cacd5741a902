"""Browser-test fixtures: a real agentur on 127.0.0.1 and headless Chromium.

Every test here is `slow` (a browser and a real server). They run on SQLite only: the browser
exercises the pages and the HTTP contract, which the API tests already check on both backends."""

from __future__ import annotations

import shutil
from collections.abc import AsyncIterator
from pathlib import Path

import pytest
from playwright.async_api import Browser, BrowserContext

from agentur.api.app import create_app
from agentur.knowledge.background import start_background_indexing
from agentur.runtime import Runtime
from tests.api.live_server import live_server
from tests.web.browser import chromium_path, launch_chromium


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    here = Path(__file__).parent
    for item in items:
        if Path(str(item.fspath)).is_relative_to(here):
            item.add_marker(pytest.mark.slow)
            if chromium_path() is None:
                item.add_marker(pytest.mark.skip(reason="Debian's chromium is not installed"))


@pytest.fixture
def database_url(sqlite_template: Path, tmp_path: Path) -> str:
    """SQLite only (see the module docstring)."""
    target = tmp_path / "agentur.db"
    shutil.copyfile(sqlite_template, target)
    return f"sqlite+aiosqlite:///{target}"


@pytest.fixture
async def base_url(runtime: Runtime) -> AsyncIterator[str]:
    """agentur served by a real uvicorn on 127.0.0.1, sharing the test's runtime."""
    async with live_server(create_app(runtime=runtime)) as url:
        yield url


@pytest.fixture
async def browser() -> AsyncIterator[Browser]:
    async with launch_chromium() as browser:
        yield browser


@pytest.fixture
async def browser_context(browser: Browser) -> AsyncIterator[BrowserContext]:
    context = await browser.new_context(locale="de-CH", timezone_id="Europe/Zurich")
    context.set_default_timeout(15_000)
    try:
        yield context
    finally:
        await context.close()


@pytest.fixture
async def indexing(runtime: Runtime) -> AsyncIterator[None]:
    """The in-process indexing worker `agentur serve` runs (the test server shares the
    runtime, so the test starts it)."""
    stop = start_background_indexing(runtime)
    try:
        yield
    finally:
        await stop()
