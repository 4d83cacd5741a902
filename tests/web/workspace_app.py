"""Browser tests of the workspace app: open it signed in through the real sign-in form, and
read the API as the same member to check what the page stored."""

from __future__ import annotations

from typing import Any

import httpx
from playwright.async_api import BrowserContext, Page

from tests.conftest import Member


async def open_signed_in(context: BrowserContext, base_url: str, key: str, route: str) -> Page:
    """A page on `#/<route>` after signing in with `key` (the UI is German: de-CH)."""
    page = await context.new_page()
    await page.goto(f"{base_url}/#/{route}")
    await sign_in(page, key)
    await page.get_by_role("navigation", name="Hauptnavigation").wait_for()
    return page


async def sign_in(page: Page, key: str) -> None:
    """Submit the sign-in form (German UI) with `key`."""
    await page.get_by_label("API-Schlüssel").fill(key)
    await page.get_by_role("button", name="Anmelden").click()


async def api_get(base_url: str, member: Member, path: str) -> Any:
    async with httpx.AsyncClient(base_url=base_url, headers=member.headers, timeout=60) as client:
        response = await client.get(path)
        assert response.status_code == 200, response.text
        return response.json()
