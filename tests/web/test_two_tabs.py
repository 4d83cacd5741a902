"""Two tabs of one signed-in browser share the session cookie, and with it the session's
active mandate. A tab that still shows mandate A after the other tab switched to B must go on
acting in A: what it creates lands where its user sees it."""

from __future__ import annotations

from playwright.async_api import BrowserContext, expect

from tests.conftest import Tenants
from tests.web.workspace_app import api_get, open_signed_in


async def test_a_tab_keeps_its_mandate_when_another_tab_switches(
    browser_context: BrowserContext, base_url: str, tenants: Tenants
) -> None:
    alice = await tenants.member("Gartenbau Muster")
    bob = await tenants.member("Treuhand Beispiel")
    first = await open_signed_in(browser_context, base_url, alice.key, "files")
    await expect(first.get_by_role("heading", name="Dateien", exact=True)).to_be_visible()

    # the second tab: same cookie, same session; it adds bob's mandate and so switches to it
    second = await browser_context.new_page()
    await second.goto(f"{base_url}/#/files")
    await second.get_by_role("button", name="Mandant hinzufügen").click()
    await second.get_by_label("API-Schlüssel").fill(bob.key)
    await second.get_by_role("button", name="Hinzufügen", exact=True).click()
    await expect(second.get_by_label("Mandant", exact=True)).to_have_value(bob.mandate_id)

    # the first tab still shows Gartenbau Muster: its new folder goes there
    await expect(first.get_by_label("Mandant", exact=True)).to_have_value(alice.mandate_id)
    await first.get_by_label("Neuer Ordner").fill("Offerten")
    await first.get_by_role("button", name="Ordner anlegen").click()
    await expect(first.get_by_role("button", name="Offerten", exact=True)).to_be_visible()
    assert [item["name"] for item in await api_get(base_url, alice, "/v1/folders")] == ["Offerten"]
    assert await api_get(base_url, bob, "/v1/folders") == []
