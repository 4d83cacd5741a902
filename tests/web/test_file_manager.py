"""The Files screen as a file manager, in Chromium against the real API: breadcrumbs, download,
rename, move (folder chooser and drag and drop onto a folder or breadcrumb), delete only after
confirming, and a multi-selection moved and deleted at once. What the page did is read back
through the API as the same member."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import httpx
from playwright.async_api import BrowserContext, Locator, Page, expect

from tests.conftest import Member, Tenants
from tests.web.browser import screenshot, serious_accessibility_violations
from tests.web.workspace_app import api_get, open_signed_in

CONTENT = "Offerte Gartenpflege: CHF 480 pro Einsatz.\n"
# Tall enough that a row and the folder it is dragged to are on screen together (a page that
# scrolls while the mouse button is down starts no drag in Playwright).
TALL = {"width": 1280, "height": 1600}


async def _seed(base_url: str, member: Member) -> dict[str, Any]:
    """Folders Offerten, Offerten/Erledigt, Archiv and Archiv/2025; five text files in
    Offerten."""
    async with httpx.AsyncClient(base_url=base_url, headers=member.headers, timeout=60) as api:
        offers = (await api.post("/v1/folders", json={"name": "Offerten"})).json()
        archive = (await api.post("/v1/folders", json={"name": "Archiv"})).json()
        older = await api.post("/v1/folders", json={"name": "2025", "parent_id": archive["id"]})
        done = await api.post("/v1/folders", json={"name": "Erledigt", "parent_id": offers["id"]})
        files = {}
        for name in ("a.txt", "b.txt", "c.txt", "d.txt", "e.txt"):
            uploaded = await api.post(
                "/v1/files",
                data={"folder_id": offers["id"]},
                files={"file": (name, f"{name}: {CONTENT}".encode(), "text/plain")},
            )
            assert uploaded.status_code == 201, uploaded.text
            files[name] = uploaded.json()["id"]
    folders = {"offers": offers["id"], "archive": archive["id"]}
    return folders | {"older": older.json()["id"], "done": done.json()["id"]} | files


async def _names(base_url: str, member: Member, folder: str) -> list[str]:
    listing = await api_get(base_url, member, f"/v1/files?folder_id={folder}")
    return sorted(item["name"] for item in listing["items"])


def _name(page: Page, name: str) -> Locator:
    """The file's name in its row: where a drag starts."""
    return page.get_by_role("rowheader", name=name, exact=True)


def _row(page: Page, name: str) -> Locator:
    return page.locator("tbody tr", has=_name(page, name))


async def _in_offers(context: BrowserContext, base_url: str, member: Member) -> Page:
    """The Files screen signed in as `member`, the folder Offerten open."""
    page = await open_signed_in(context, base_url, member.key, "files")
    await page.set_viewport_size(TALL)
    await page.get_by_role("button", name="Offerten", exact=True).click()
    return page


async def test_download_rename_move_and_delete(
    base_url: str, browser_context: BrowserContext, tenants: Tenants, tmp_path: Path
) -> None:
    member = await tenants.member()
    ids = await _seed(base_url, member)
    page = await _in_offers(browser_context, base_url, member)
    crumbs = page.get_by_role("navigation", name="Ordnerpfad")
    await expect(crumbs.get_by_role("listitem")).to_have_text(["Alle Ordner", "Offerten"])
    await expect(crumbs.locator("[aria-current='location']")).to_have_text("Offerten")
    await expect(page.locator("tbody tr")).to_have_count(5)

    # Download: the file's own bytes under its own name.
    async with page.expect_download() as download_info:
        await _row(page, "a.txt").get_by_role("button", name="Herunterladen: a.txt").click()
    download = await download_info.value
    assert download.suggested_filename == "a.txt"
    saved = tmp_path / "a.txt"
    await download.save_as(saved)
    assert saved.read_text() == f"a.txt: {CONTENT}"

    # Rename in a dialog.
    await _row(page, "b.txt").get_by_role("button", name="Umbenennen: b.txt").click()
    dialog = page.get_by_role("dialog", name="«b.txt» umbenennen")
    await expect(dialog).to_be_visible()
    await expect(dialog.get_by_label("Neuer Name")).to_be_focused()
    await screenshot(page, "files-rename-dialog")
    assert await serious_accessibility_violations(page) == []
    await dialog.get_by_label("Neuer Name").fill("b-2026.txt")
    await dialog.get_by_role("button", name="Umbenennen", exact=True).click()
    await expect(dialog).to_be_hidden()
    await expect(_row(page, "b-2026.txt")).to_be_visible()
    file = await api_get(base_url, member, f"/v1/files/{ids['b.txt']}")
    assert file["name"] == "b-2026.txt"

    # Delete asks first: Escape and Cancel delete nothing, confirming does.
    delete_c = _row(page, "c.txt").get_by_role("button", name="Löschen: c.txt")
    await delete_c.click()
    confirm = page.get_by_role("dialog", name="«c.txt» löschen?")
    await expect(confirm.get_by_role("button", name="Abbrechen")).to_be_focused()
    await page.keyboard.press("Escape")
    await expect(confirm).to_be_hidden()
    await delete_c.click()
    await confirm.get_by_role("button", name="Abbrechen").click()
    assert "c.txt" in await _names(base_url, member, ids["offers"])
    await delete_c.click()
    await confirm.get_by_role("button", name="Löschen", exact=True).click()
    await expect(_row(page, "c.txt")).to_have_count(0)
    assert "c.txt" not in await _names(base_url, member, ids["offers"])

    # Move with the folder chooser: into Archiv/2025.
    await _row(page, "a.txt").get_by_role("button", name="Verschieben: a.txt").click()
    chooser = page.get_by_role("dialog", name="«a.txt» verschieben")
    # it starts where the screen is, Offerten (no subfolders)
    await expect(chooser.locator(".chooser-where")).to_have_text("Ziel: Alle Ordner / Offerten")
    await chooser.get_by_role("button", name="Eine Ebene höher").click()
    await chooser.get_by_role("button", name="Archiv", exact=True).click()
    await chooser.get_by_role("button", name="2025", exact=True).click()
    await expect(chooser.locator(".chooser-where")).to_have_text(
        "Ziel: Alle Ordner / Archiv / 2025"
    )
    assert await serious_accessibility_violations(page) == []
    await chooser.get_by_role("button", name="Hierher verschieben").click()
    await expect(_row(page, "a.txt")).to_have_count(0)
    assert await _names(base_url, member, ids["older"]) == ["a.txt"]

    # Drag a row onto a breadcrumb: d.txt to the top level.
    await _name(page, "d.txt").drag_to(crumbs.get_by_role("button", name="Alle Ordner"))
    await expect(_row(page, "d.txt")).to_have_count(0)
    assert await _names(base_url, member, "root") == ["d.txt"]
    await expect(page.get_by_role("status")).to_have_text("1 verschoben")

    # Breadcrumbs lead back up: into Archiv/2025 and back to Archiv.
    await crumbs.get_by_role("button", name="Alle Ordner").click()
    await page.get_by_role("button", name="Archiv", exact=True).click()
    await page.get_by_role("button", name="2025", exact=True).click()
    await expect(crumbs.get_by_role("listitem")).to_have_text(["Alle Ordner", "Archiv", "2025"])
    await expect(_row(page, "a.txt")).to_be_visible()
    await crumbs.get_by_role("button", name="Archiv").click()
    await expect(crumbs.get_by_role("listitem")).to_have_text(["Alle Ordner", "Archiv"])
    await expect(page.get_by_text("Keine Dateien.")).to_be_visible()


async def test_a_selection_is_moved_by_dragging_and_deleted_at_once(
    base_url: str, browser_context: BrowserContext, tenants: Tenants
) -> None:
    member = await tenants.member()
    ids = await _seed(base_url, member)
    page = await _in_offers(browser_context, base_url, member)
    toolbar = page.get_by_role("group", name="Aktionen für die Auswahl")
    await expect(toolbar.get_by_role("button", name="Auswahl löschen …")).to_be_disabled()

    # Two rows selected, dragged together onto the subfolder Erledigt.
    await page.get_by_label("Auswählen: a.txt").check()
    await page.get_by_label("Auswählen: b.txt").check()
    await expect(toolbar).to_contain_text("2 ausgewählt")
    await _name(page, "b.txt").drag_to(page.get_by_role("button", name="Erledigt", exact=True))
    await expect(page.locator("tbody tr")).to_have_count(3)
    assert await _names(base_url, member, ids["done"]) == ["a.txt", "b.txt"]
    await expect(toolbar).to_contain_text("0 ausgewählt")

    # Select all, then delete the three after one confirmation that names them.
    await page.get_by_label("Alle Dateien auswählen").check()
    await expect(toolbar).to_contain_text("3 ausgewählt")
    await toolbar.get_by_role("button", name="Auswahl löschen …").click()
    confirm = page.get_by_role("dialog", name="3 Dateien löschen?")
    await expect(confirm.get_by_role("listitem")).to_have_text(["c.txt", "d.txt", "e.txt"])
    await screenshot(page, "files-delete-selection")
    await confirm.get_by_role("button", name="Löschen", exact=True).click()
    await expect(page.get_by_text("Keine Dateien.")).to_be_visible()
    assert await _names(base_url, member, ids["offers"]) == []
    assert await _names(base_url, member, ids["done"]) == ["a.txt", "b.txt"]  # untouched
