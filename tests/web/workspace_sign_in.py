"""Open the workspace app signed in: the real sign-in form with a member's API key."""

from __future__ import annotations

from playwright.async_api import BrowserContext, Page


async def open_signed_in(context: BrowserContext, base_url: str, key: str, route: str) -> Page:
    """A page on `#/<route>` after signing in through the form (the UI is German: de-CH)."""
    page = await context.new_page()
    await page.goto(f"{base_url}/#/{route}")
    await page.get_by_label("API-Schlüssel").fill(key)
    await page.get_by_role("button", name="Anmelden").click()
    await page.get_by_role("navigation").wait_for()
    return page
