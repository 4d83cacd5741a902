"""Headless Chromium for the browser tests: Debian's `chromium` driven by Playwright for Python.

No browser download at run time: Playwright launches the system binary (`executable_path`).
The flags keep Chromium off the network it cannot reach here (background services, updates),
which would otherwise refuse connections at every start."""

from __future__ import annotations

import os
import shutil
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

from axe_playwright_python.async_playwright import Axe
from playwright.async_api import Browser, Page, async_playwright

CHROMIUM_FLAGS = [
    "--no-sandbox",  # CI runs as root, where Chromium's own sandbox refuses to start
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]
# axe-core impacts that fail a screen: "no serious violations"
FAILING_IMPACTS = {"serious", "critical"}


def chromium_path() -> str | None:
    return os.environ.get("AGENTUR_TEST_CHROMIUM") or shutil.which("chromium")


@asynccontextmanager
async def launch_chromium() -> AsyncIterator[Browser]:
    executable = chromium_path()
    if executable is None:
        raise RuntimeError("Debian's chromium is not installed (apt-get install chromium)")
    async with async_playwright() as playwright:
        browser = await playwright.chromium.launch(
            executable_path=executable, headless=True, args=CHROMIUM_FLAGS
        )
        try:
            yield browser
        finally:
            await browser.close()


def screenshot_dir() -> Path:
    """Where the tests leave screenshots for a reviewer (not committed; see .gitignore)."""
    folder = Path(os.environ.get("AGENTUR_SCREENSHOTS", "test-screenshots"))
    folder.mkdir(parents=True, exist_ok=True)
    return folder


async def screenshot(page: Page, name: str) -> Path:
    path = screenshot_dir() / f"{name}.png"
    await page.screenshot(path=str(path), full_page=True)
    return path


async def serious_accessibility_violations(page: Page) -> list[dict[str, Any]]:
    """axe-core's serious and critical WCAG 2.1 A/AA violations on the page as it is now."""
    results = await Axe().run(
        page,
        options={
            "resultTypes": ["violations"],
            "runOnly": {"type": "tag", "values": ["wcag2a", "wcag2aa", "wcag21a", "wcag21aa"]},
        },
    )
    return [
        {
            "id": violation["id"],
            "impact": violation["impact"],
            "help": violation["help"],
            "targets": [node["target"] for node in violation["nodes"]],
        }
        for violation in results.response["violations"]
        if violation.get("impact") in FAILING_IMPACTS
    ]
