"""The workspace app in a real browser: sign in with an API key, folders, upload a
file and see it indexed, tags, preview, knowledge search with marked passages and a link to
the section, usage, switching mandates, signing out. Every screen: a screenshot for the
reviewer and no serious axe-core violation."""

from __future__ import annotations

import base64
import re
from datetime import UTC, datetime, timedelta

import httpx
from fpdf import FPDF
from playwright.async_api import BrowserContext, Page, expect
from sqlalchemy import select, update

from agentur.accounts.api_keys import revoke_api_key
from agentur.runtime import Runtime
from agentur.storage.models import ApiKey
from agentur.storage.models.ai import AiLedgerEntry, MandateAiSettings
from agentur.storage.models.knowledge import FileContentIndex
from tests.conftest import Member, Tenants
from tests.web.browser import screenshot, serious_accessibility_violations
from tests.web.workspace_app import sign_in

OFFER = (
    "Offerte Gartenpflege 2026\n\n"
    "Die Heckenpflege im Frühling kostet CHF 480 pro Einsatz. "
    "Rasenmähen wird wöchentlich von April bis Oktober ausgeführt.\n"
)


async def spend(
    runtime: Runtime, member: Member, *, cost_chf: float, monthly_limit_chf: float
) -> None:
    """An AI call in the ledger today, and a monthly limit for the mandate."""
    async with runtime.database.transaction() as db:
        db.add(MandateAiSettings(mandate_id=member.mandate_id, monthly_limit_chf=monthly_limit_chf))
        db.add(
            AiLedgerEntry(
                mandate_id=member.mandate_id,
                user_id=member.user_id,
                operation="agent",
                model="scripted:helper",
                provider="scripted",
                input_tokens=1250,
                output_tokens=80,
                cost_chf=cost_chf,
                usd_to_chf=0.9,
                created_at=datetime.now(UTC),
            )
        )


def small_pdf(text: str) -> bytes:
    pdf = FPDF()
    pdf.add_page()
    pdf.set_font("helvetica", size=14)
    pdf.cell(text=text)
    return bytes(pdf.output())


async def revoke(runtime: Runtime, member: Member) -> None:
    lookup_id = member.key.split("_")[1]
    async with runtime.database.transaction() as db:
        key = await db.scalar(select(ApiKey).where(ApiKey.lookup_id == lookup_id))
        assert key is not None
        await revoke_api_key(db, key.id)


async def check_screen(page: Page, name: str) -> None:
    await screenshot(page, name)
    assert await serious_accessibility_violations(page) == [], name


async def test_sign_in_files_search_usage_and_mandates(
    base_url: str,
    browser_context: BrowserContext,
    runtime: Runtime,
    tenants: Tenants,
    indexing: None,
) -> None:
    alice = await tenants.member("Gartenbau Muster")
    bob = await tenants.member("Treuhand Beispiel")
    await spend(runtime, alice, cost_chf=0.42, monthly_limit_chf=50.0)
    page = await browser_context.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda error: errors.append(str(error)))

    # sign in (the browser's language is de-CH, so the app speaks German)
    await page.goto(base_url + "/")
    await expect(page.get_by_role("heading", name="Anmelden")).to_be_visible()
    assert await page.evaluate("document.documentElement.lang") == "de"
    await check_screen(page, "sign-in")
    await sign_in(page, alice.key + "x")
    await expect(page.get_by_role("alert")).to_contain_text("invalid, expired or revoked")
    await sign_in(page, alice.key)
    await expect(page.get_by_role("heading", name="Dateien", exact=True)).to_be_visible()
    cookies = await browser_context.cookies()
    assert [(c["name"], c["httpOnly"], c["sameSite"]) for c in cookies] == [
        ("agentur_session", True, "Strict")
    ]
    assert await page.evaluate("document.cookie") == ""  # scripts never see the session

    # a folder, then an upload into it with a tag, indexed in the background
    await page.get_by_label("Neuer Ordner").fill("Offerten")
    await page.get_by_role("button", name="Ordner anlegen").click()
    await page.get_by_role("button", name="Offerten", exact=True).click()
    breadcrumbs = page.get_by_role("navigation", name="Ordnerpfad")
    await expect(breadcrumbs.locator("[aria-current]")).to_have_text("Offerten")
    await page.get_by_label("Tags für neue Dateien").fill("offerte")
    await page.locator("#upload-input").set_input_files(
        files=[{"name": "gartenpflege.txt", "mimeType": "text/plain", "buffer": OFFER.encode()}]
    )
    row = page.locator("tr", has_text="gartenpflege.txt")
    await expect(row.locator(".tag")).to_have_text("offerte")
    await expect(row.locator(".index-status")).to_have_attribute(
        "data-status", "indexed", timeout=60_000
    )
    await expect(row.locator(".badge")).to_have_text("indexiert")

    # drag and drop a PDF onto the drop zone, then its preview in the browser's viewer
    await page.locator(".drop-zone").evaluate(
        """(zone, base64) => {
            const bytes = Uint8Array.from(atob(base64), (c) => c.charCodeAt(0));
            const transfer = new DataTransfer();
            transfer.items.add(new File([bytes], "auftrag.pdf", {type: "application/pdf"}));
            zone.dispatchEvent(new DragEvent("drop", {dataTransfer: transfer, bubbles: true}));
        }""",
        base64.b64encode(small_pdf("Auftrag Gartenpflege")).decode(),
    )
    await expect(page.get_by_text("auftrag.pdf hochgeladen")).to_be_visible()
    pdf_row = page.locator("tr", has_text="auftrag.pdf")
    await pdf_row.get_by_role("button", name="Vorschau: auftrag.pdf").click()
    frame = page.locator(".preview iframe")
    await expect(frame).to_have_attribute("title", "Vorschau: auftrag.pdf")
    assert (await frame.get_attribute("src") or "").startswith("blob:")
    await page.get_by_role("button", name="Vorschau schliessen").click()
    await expect(frame).to_have_count(0)

    # tags: edit, then filter by them
    await row.get_by_role("button", name="Tags von gartenpflege.txt").click()
    await page.get_by_label("Tags von gartenpflege.txt").fill("offerte, garten")
    await page.get_by_role("button", name="Speichern").click()
    await expect(row.locator(".tag")).to_have_text(["garten", "offerte"])  # sorted by the server
    await page.get_by_label("Nach Tag filtern").fill("garten")
    await page.get_by_role("button", name="Filtern").click()
    await expect(page.locator("tbody tr")).to_have_count(1)

    # preview of the text
    await row.get_by_role("button", name="Vorschau: gartenpflege.txt").click()
    await expect(page.locator(".preview pre")).to_contain_text("Heckenpflege im Frühling")
    await check_screen(page, "files")

    # knowledge search: the passage with the query's words marked, a link to the section
    await page.get_by_role("link", name="Wissenssuche").click()
    await expect(page.get_by_role("heading", name="Wissenssuche")).to_be_visible()
    await page.get_by_label("Suchbegriff").fill("Heckenpflege Frühling")
    await page.get_by_role("button", name="Suchen").click()
    hit = page.locator(".hit").first
    await expect(hit.get_by_role("heading")).to_have_text("gartenpflege.txt")
    await expect(hit.locator("mark")).to_have_text(["Heckenpflege", "Frühling"])
    await expect(page.locator("main")).not_to_contain_text("null")
    await check_screen(page, "search")
    passage = await hit.locator(".passage").inner_text()
    await hit.get_by_role("link", name="Abschnitt in gartenpflege.txt öffnen").click()
    await expect(page.get_by_role("heading", name="Fundstelle in gartenpflege.txt")).to_be_visible()
    await expect(page.locator(".section mark#passage")).to_have_text(passage)
    await expect(page.locator(".section mark#passage")).to_be_in_viewport()
    await check_screen(page, "search-section")

    # usage: cost per day and model, the monthly limit and what is left
    await page.get_by_role("link", name="Verbrauch").click()
    await expect(page.get_by_role("heading", name="Verbrauch", exact=True)).to_be_visible()
    model_row = page.locator("tr", has_text="scripted:helper")
    await expect(model_row).to_contain_text(re.compile("1['’]250"))  # de-CH digit grouping
    await expect(model_row).to_contain_text("CHF 0.42")
    await expect(page.locator(".facts")).to_contain_text("CHF 49.58")  # 50 - 0.42 left
    await page.get_by_label("Zeitraum").select_option(label="Letzte 7 Tage")
    await expect(page.locator("table").first.locator("tbody tr")).to_have_count(7)
    await check_screen(page, "usage")

    # mandate switcher: another mandate's key joins the session; its files are its own
    await page.get_by_role("button", name="Mandant hinzufügen").click()
    await sign_in_add(page, "agt_wrong_key")
    await expect(page.get_by_role("alert")).to_contain_text("api_key: invalid")  # still in
    await sign_in_add(page, bob.key)
    switcher = page.get_by_label("Mandant", exact=True)
    await expect(switcher).to_have_value(bob.mandate_id)
    await page.get_by_role("link", name="Dateien").click()
    await expect(page.get_by_text("Keine Dateien.")).to_be_visible()
    await check_screen(page, "mandate-switcher")
    await switcher.select_option(label="Gartenbau Muster")
    await expect(page.get_by_role("status")).to_have_text("Mandant gewechselt: Gartenbau Muster")
    await page.get_by_role("button", name="Offerten", exact=True).click()
    await expect(page.locator("tr", has_text="gartenpflege.txt")).to_be_visible()

    # the language is switchable
    await page.get_by_label("Sprache").select_option("fr")
    await expect(page.get_by_role("heading", name="Fichiers", exact=True)).to_be_visible()
    assert await page.evaluate("document.documentElement.lang") == "fr"
    await page.get_by_label("Langue").select_option("de")

    # a key of the session revoked elsewhere: the next request ends the session
    await page.get_by_role("link", name="Verbrauch").click()
    await expect(page.get_by_role("heading", name="Verbrauch", exact=True)).to_be_visible()
    await revoke(runtime, bob)
    await page.get_by_label("Zeitraum").select_option(label="Letzte 30 Tage")  # a request
    await expect(page.get_by_role("heading", name="Anmelden")).to_be_visible()
    await sign_in(page, alice.key)  # and back where the browser was
    await expect(page.get_by_role("heading", name="Verbrauch", exact=True)).to_be_visible()
    await expect(page.get_by_label("Mandant", exact=True).locator("option")).to_have_count(1)

    # sign out: a reload stays signed out
    await page.get_by_role("button", name="Abmelden").click()
    await expect(page.get_by_role("heading", name="Anmelden")).to_be_visible()
    await page.reload()
    await expect(page.get_by_role("heading", name="Anmelden")).to_be_visible()
    assert errors == []


async def sign_in_add(page: Page, key: str) -> None:
    await expect(page.get_by_role("heading", name="Mandant hinzufügen")).to_be_visible()
    await page.get_by_label("API-Schlüssel").fill(key)
    await page.get_by_role("button", name="Hinzufügen", exact=True).click()


async def test_index_status_shows_progress_while_a_file_is_indexed(
    base_url: str, browser_context: BrowserContext, runtime: Runtime, tenants: Tenants
) -> None:
    """No worker runs here: the test sets the index state the worker would write."""
    alice = await tenants.member("Gartenbau Muster")
    async with httpx.AsyncClient(base_url=base_url, headers=alice.headers, timeout=60) as client:
        uploaded = await client.post("/v1/files", files={"file": ("lang.txt", b"Text")})
    assert uploaded.status_code == 201, uploaded.text
    file_id = uploaded.json()["id"]
    async with runtime.database.transaction() as db:
        db.add(
            FileContentIndex(
                file_id=file_id,
                mandate_id=alice.mandate_id,
                owner_id=alice.user_id,
                scope="personal",
                status="indexing",
                chunk_count=0,
                chunks_total=10,
                chunks_done=4,
                progress_started_at=datetime.now(UTC) - timedelta(seconds=8),
            )
        )
    page = await browser_context.new_page()
    await page.goto(base_url + "/#/files")
    await sign_in(page, alice.key)
    status = page.locator("tr", has_text="lang.txt").locator(".index-status")
    await expect(status.locator(".badge")).to_have_text("wird indexiert")
    progress = status.get_by_role("progressbar", name="Indexierung von lang.txt")
    await expect(progress).to_have_attribute("value", "4")
    await expect(progress).to_have_attribute("max", "10")
    await expect(status).to_contain_text("4 von 10 Abschnitten")
    await expect(status).to_contain_text(re.compile(r"noch etwa \d+ s"))  # the server's ETA
    await check_screen(page, "files-indexing")
    async with runtime.database.transaction() as db:
        await db.execute(
            update(FileContentIndex)
            .where(FileContentIndex.file_id == file_id)
            .values(status="indexed", chunks_done=10)
        )
    await expect(status.locator(".badge")).to_have_text("indexiert")
    await expect(progress).to_have_count(0)
