"""Keyboard-only use of the workspace app (WCAG 2.1 2.1.1, 2.4.1, 2.4.3, 2.4.7):
sign in without a mouse, the tab order of the shell, the skip link, focus moved to the new
screen after navigation, and a visible focus ring on whatever the keyboard reaches."""

from __future__ import annotations

import asyncio
from typing import Any

from playwright.async_api import BrowserContext, Page, Route

from tests.conftest import Tenants

SCREENS = ["files", "chat", "search", "assistants", "usage"]
# The shell in tab order once signed in (de-CH UI); the screen's own controls follow.
SHELL_ORDER = [
    "a:Zum Inhalt springen",
    "select:mandate-select",
    "button:Mandant hinzufügen",
    "select:language-select",
    "button:Abmelden",
    "a:Dateien",
    "a:Agent-Chat",
    "a:Wissenssuche",
    "a:Assistenten",
    "a:Verbrauch",
]

FOCUSED = """() => {
  const node = document.activeElement;
  const style = getComputedStyle(node);
  return {
    name: node.tagName.toLowerCase() + ":" + (node.tagName === "SELECT" ? node.id
      : (node.textContent || node.getAttribute("aria-label") || "").trim()),
    id: node.id,
    inMain: !!node.closest("main") && node.id !== "main",
    outline: style.outlineStyle !== "none" && parseFloat(style.outlineWidth) >= 2,
    visible: node.getBoundingClientRect().height > 0 && node.getBoundingClientRect().top >= 0,
    hash: location.hash,
  };
}"""


async def focused(page: Page) -> dict[str, Any]:
    return await page.evaluate(FOCUSED)


async def tab(page: Page) -> dict[str, Any]:
    await page.keyboard.press("Tab")
    return await focused(page)


async def slow_stylesheet(route: Route) -> None:
    await asyncio.sleep(0.5)
    await route.continue_()


async def test_the_app_is_usable_with_the_keyboard_alone(
    browser_context: BrowserContext, base_url: str, tenants: Tenants
) -> None:
    alice = await tenants.member("acme")
    page = await browser_context.new_page()
    # a screen's own stylesheet arrives late (as on a slow link): the screen may take focus
    # only once it is styled, or Tab reaches a control the sheet then hides
    await page.route("**/screens/*.css", slow_stylesheet)
    await page.goto(f"{base_url}/#/files")
    await page.get_by_label("API-Schlüssel").wait_for()

    # sign in: the key field has the focus already (and shows it); Enter submits
    current = await focused(page)
    assert current["inMain"] and current["outline"], current
    assert await page.evaluate("document.activeElement.type") == "password"
    await page.keyboard.type(alice.key)
    await page.keyboard.press("Enter")
    await page.get_by_role("heading", level=1, name="Dateien").wait_for()
    await page.wait_for_function("() => document.title.startsWith('Dateien')")  # render finished
    assert (await focused(page))["id"] == "main"  # focus moves to the screen signed into

    # the shell's tab order from the top of a freshly loaded page (still signed in)
    await page.reload()
    await page.get_by_role("heading", level=1, name="Dateien").wait_for()
    order = [await tab(page) for _ in SHELL_ORDER]
    assert [item["name"] for item in order] == SHELL_ORDER
    assert all(item["outline"] and item["visible"] for item in order), order

    # the skip link jumps to the content and stays on the current screen
    await page.locator("#skip-link").focus()
    await page.keyboard.press("Enter")
    after_skip = await focused(page)
    assert after_skip["id"] == "main", after_skip
    assert after_skip["hash"] == "#/files"
    assert await page.get_by_role("heading", level=1, name="Dateien").is_visible()

    # every screen: reached from the navigation with Enter, focus on the new content, the
    # next Tab lands on one of its controls with a visible focus ring (Files, shown now, last)
    for screen in [*SCREENS[1:], SCREENS[0]]:
        index = SCREENS.index(screen)
        await page.locator("#skip-link").focus()
        for _ in range(SHELL_ORDER.index("a:Dateien") + index):
            await page.keyboard.press("Tab")
        assert (await focused(page))["name"] == SHELL_ORDER[5 + index]
        await page.keyboard.press("Enter")
        # the focus moves once the screen has rendered (some wait for the API first)
        await page.wait_for_function(
            f"() => location.hash === '#/{screen}' && document.activeElement.id === 'main'"
        )
        styled = "[...document.querySelectorAll('link[rel=stylesheet]')].every((l) => l.sheet)"
        assert await page.evaluate(styled), f"{screen} took the focus before its stylesheet"
        inside = await tab(page)
        assert inside["inMain"] and inside["outline"] and inside["visible"], (screen, inside)
