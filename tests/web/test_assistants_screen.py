"""The Assistants screen in Chromium: create an assistant with a FAQ through the form, see it
listed, edit it (the FAQ keeps its id; a help desk with opening hours and a flow with a choice
and a handoff join), see a refused definition's reason, and read the shadow-mode decisions and
the latest replay."""

from __future__ import annotations

import httpx
from playwright.async_api import BrowserContext, Page, expect

from agentur.assistant.conversation_store import ConversationStore
from agentur.assistant.replay import Label, run_replay
from agentur.assistant.settings import AssistantSettings
from agentur.runtime import Runtime
from agentur.storage.models.assistant import Assistant
from tests.assistant.definitions import shop_definition
from tests.assistant.turns import preflight, scripted_ai
from tests.conftest import Tenants
from tests.web.browser import screenshot, serious_accessibility_violations
from tests.web.workspace_app import api_get, open_signed_in

QUESTION = "Wie lange dauert der Versand?"


async def _log_shadow_and_replay(runtime: Runtime, assistant_id: str, faq_id: str) -> None:
    """A shadow decision as the pre-flight logs it, and one replay of a two-message label set."""
    labels = [Label(text=QUESTION, expected=f"faq:{faq_id}"), Label(text="Hallo", expected="none")]
    # 0.97: above the FAQ threshold of 0.95 the form set, so both messages decide for the FAQ.
    ai, _ = scripted_ai(preflight(faq=faq_id, faq_c=0.97), preflight(faq=faq_id, faq_c=0.97))
    async with runtime.database.transaction() as session:
        row = await session.get(Assistant, assistant_id)
        assert row is not None
        store = ConversationStore(session, row.mandate_id, row.id)
        await store.log_decision(
            mode="shadow", message="Wo ist mein Paket?", decision="none", answers=None, acted=False
        )
        await run_replay(session, ai, row, labels, AssistantSettings())


async def _save(page: Page) -> None:
    await page.get_by_role("button", name="Speichern").click()


async def _tab(page: Page, name: str) -> None:
    """Shows one section of the editor (tabs: one section at a time)."""
    await page.get_by_role("tab", name=name).click()
    await expect(page.get_by_role("tab", name=name)).to_have_attribute("aria-selected", "true")


async def test_create_list_edit_and_decisions(
    browser_context: BrowserContext, base_url: str, runtime: Runtime, tenants: Tenants
) -> None:
    member = await tenants.member()
    page = await open_signed_in(browser_context, base_url, member.key, "assistants")
    await expect(page.get_by_role("heading", level=1)).to_have_text("Assistenten")
    await expect(page.get_by_text("Noch keine Assistenten.")).to_be_visible()
    assert await serious_accessibility_violations(page) == []

    # Create with one FAQ.
    await page.get_by_role("button", name="Neuer Assistent").click()
    await page.get_by_label("Name", exact=True).fill("Velo-Shop")
    await _tab(page, "FAQs")
    await page.get_by_role("button", name="FAQ hinzufügen").click()
    await page.get_by_label("Frage", exact=True).fill(QUESTION)
    await page.get_by_label("Antwort", exact=True).fill("Zwei Arbeitstage innerhalb der Schweiz.")
    await page.get_by_label("Andere Formulierungen").fill("Wann kommt mein Paket?\nLieferzeit?")
    await page.get_by_label("Stichwörter").fill("Versand, Lieferung")
    # The FAQ in English too (its own language is the assistant's first: German).
    await page.get_by_role("button", name="Übersetzung hinzufügen").click()
    await page.get_by_label("Sprache der Übersetzung").select_option(label="Englisch")
    await page.get_by_label("Frage in dieser Sprache").fill("How long does shipping take?")
    await page.get_by_label("Antwort in dieser Sprache").fill("Two working days.")
    await _tab(page, "Pre-Flight-Schwellen")
    await page.get_by_label("Mit einer FAQ antworten").fill("0.95")
    assert await serious_accessibility_violations(page) == []
    await _save(page)
    await expect(page.locator(".assistants-status")).to_contain_text("«Velo-Shop» gespeichert")
    row = page.locator("tr", has=page.get_by_role("rowheader", name="Velo-Shop"))
    await expect(row.locator("td").nth(1)).to_have_text("1")  # one FAQ
    [created] = await api_get(base_url, member, "/v1/assistants")
    [faq] = created["faqs"]
    assert created["languages"] == ["de"]
    thresholds = created["preflight_thresholds"]
    assert (thresholds["faq"], thresholds["flow"]) == (0.95, 0.8)  # empty: the server default
    assert (faq["question"], faq["variants"], faq["keywords"]) == (
        QUESTION,
        ["Wann kommt mein Paket?", "Lieferzeit?"],
        ["Versand", "Lieferung"],
    )
    assert (faq["language"], faq["translations"]) == (
        None,
        {"en": {"question": "How long does shipping take?", "answer": "Two working days."}},
    )
    await screenshot(page, "assistants-list")

    # Edit: a new answer and a help desk with opening hours.
    await page.get_by_role("button", name="Velo-Shop bearbeiten").click()
    await _tab(page, "FAQs")
    await expect(page.get_by_label("Frage", exact=True)).to_have_value(QUESTION)
    await expect(page.get_by_label("Antwort in dieser Sprache")).to_have_value("Two working days.")
    await page.get_by_label("Antwort", exact=True).fill("Zwei bis drei Arbeitstage.")
    await _tab(page, "Anlaufstellen")
    await page.get_by_role("button", name="Anlaufstelle hinzufügen").click()
    await page.get_by_label("Name der Anlaufstelle").fill("Kundendienst")
    await page.get_by_label("Adresse, Nummer oder Webadresse").fill("hilfe@velo.example")
    hours = page.get_by_label("Öffnungszeiten", exact=True)
    # A flow: a choice whose second option jumps to a handoff to that desk.
    await _tab(page, "Abläufe")
    flows = page.locator("fieldset.flows")
    await flows.get_by_role("button", name="Ablauf hinzufügen").click()
    await flows.get_by_label("Name des Ablaufs").fill("Rückgabe")
    await flows.get_by_label("Art des Schritts").select_option("choice")
    await flows.get_by_label("Frage an die Besucherin oder den Besucher").fill("Was möchten Sie?")
    await flows.get_by_label("Variable").fill("wunsch")
    await flows.get_by_label("Auswahlmöglichkeiten").fill(
        "Umtausch = exchange\nGeld zurück = refund -> desk"
    )
    await flows.get_by_role("button", name="Schritt hinzufügen").click()
    handoff = flows.locator(".flow-steps li.item").nth(1)
    await handoff.get_by_label("Art des Schritts").select_option("handoff")
    await handoff.get_by_label("Schritt-ID").fill("desk")
    await handoff.get_by_label("Anlaufstelle").fill("Kundendienst")
    # A wrong range reaches the server, whose problem detail names the field.
    await _tab(page, "Anlaufstellen")
    await hours.fill("mon-fri 08:00-25:00")
    await _save(page)
    alert = page.locator(".assistant-form [role='alert']")
    await expect(alert).to_contain_text("Nicht gespeichert")
    await expect(alert).to_contain_text("help_desks.0.options.0.hours.days")
    await hours.fill("mon-fri 08:00-12:00 13:30-17:00")
    await _save(page)
    await expect(page.locator(".assistants-status")).to_contain_text("«Velo-Shop» gespeichert")
    [edited] = await api_get(base_url, member, "/v1/assistants")
    assert edited["faqs"][0]["id"] == faq["id"]
    assert edited["faqs"][0]["answer"] == "Zwei bis drei Arbeitstage."
    [option] = edited["help_desks"][0]["options"]
    assert option["address"] == "hilfe@velo.example"
    assert option["hours"]["timezone"] == "Europe/Zurich"  # the browser's zone by default
    assert option["hours"]["days"] == {
        day: ["08:00-12:00", "13:30-17:00"] for day in ("mon", "tue", "wed", "thu", "fri")
    }
    [flow] = edited["flows"]
    choice, handoff_step = flow["steps"]
    assert (choice["kind"], choice["variable"], choice["options"]) == (
        "choice",
        "wunsch",
        [
            {"label": "Umtausch", "value": "exchange", "next_step": None},
            {"label": "Geld zurück", "value": "refund", "next_step": "desk"},
        ],
    )
    assert handoff_step == {"kind": "handoff", "id": "desk", "help_desk": "Kundendienst"}

    # Decisions and the latest replay of this assistant.
    await _log_shadow_and_replay(runtime, created["id"], faq["id"])
    await page.get_by_role("button", name="Velo-Shop bearbeiten").click()
    await _tab(page, "Anlaufstellen")
    await expect(hours).to_have_value("mon-fri 08:00-12:00 13:30-17:00")  # read back as typed
    await _tab(page, "Abläufe")
    await expect(flows.get_by_label("Auswahlmöglichkeiten")).to_have_value(
        "Umtausch = exchange\nGeld zurück = refund -> desk"
    )
    decisions = page.locator(".assistant-decisions table")
    await expect(decisions.locator("tbody tr")).to_have_count(3)  # shadow + two replayed
    shadow = decisions.locator("tr", has_text="Wo ist mein Paket?")
    await expect(shadow).to_contain_text("Schatten")
    await expect(shadow).to_contain_text("nein")
    await expect(page.locator(".replay-summary")).to_have_text(
        "2 Nachrichten, 0 seit dem letzten Replay geändert, 1 weichen von ihrem Label ab."
    )
    await expect(page.locator(".replay-flagged")).to_have_count(1)
    await expect(page.locator(".replay-flagged")).to_contain_text("Hallo")
    # A publishable visitor key, shown once; the widget's conversations accept it.
    await page.get_by_role("button", name="Besucherschlüssel ausstellen").click()
    key = await page.locator(".visitor-key > code").text_content()
    assert key
    snippet = await page.locator(".embed-snippet").text_content()
    assert f'data-assistant="{created["id"]}" data-key="{key}"' in (snippet or "")
    async with httpx.AsyncClient(base_url=base_url, timeout=60) as client:
        conversation = await client.post(
            f"/v1/assistants/{created['id']}/conversations",
            headers={"Authorization": f"Bearer {key}"},
        )
    assert conversation.status_code == 201, conversation.text
    await screenshot(page, "assistants-edit")
    assert await serious_accessibility_violations(page) == []


async def test_an_edit_keeps_what_the_form_does_not_change_and_delete_asks_first(
    browser_context: BrowserContext, base_url: str, tenants: Tenants
) -> None:
    """A rich definition (every step kind, opening hours, an API catalog with a secret,
    thresholds and a knowledge scope) comes back unchanged but for the edited name; then the
    assistant is deleted after a confirmation."""
    member = await tenants.member()
    definition = shop_definition(
        api_catalog={
            "base_url": "https://shop.example.test/api",
            "endpoints": [
                {
                    "name": "order",
                    "path": "/orders/{order_id}",
                    "description": "One order",
                    "path_params": {"order_id": "[0-9]{5}"},
                    "query_params": ["lang"],
                }
            ],
            "credential": {"kind": "header", "name": "X-Key", "value": "s3cret-value"},
        },
        preflight_thresholds={"flow": 0.7, "faq": 0.9},
        knowledge={"scopes": ["mandate"]},
        allowed_origins=["https://shop.example.test"],
    )
    steps = definition["flows"][0]["steps"]
    steps[1]["validation"] = {"kind": "number", "min": 1.0, "max": 99999.0}
    steps.insert(
        3,
        {
            "kind": "call_api",
            "id": "lookup",
            "endpoint": "order",
            "path_params": {"order_id": "{order}"},
            "query": {"lang": "de"},
            "result_variable": "status",
            "result_path": "order.status",
        },
    )
    async with httpx.AsyncClient(base_url=base_url, headers=member.headers, timeout=60) as client:
        created = await client.post("/v1/assistants", json=definition)
    assert created.status_code == 201, created.text
    before = created.json()

    page = await open_signed_in(browser_context, base_url, member.key, "assistants")
    await page.get_by_role("button", name="Shop helper bearbeiten").click()
    await _tab(page, "API-Katalog")
    await expect(page.get_by_label("Muster der Pfadparameter")).to_have_value("order_id=[0-9]{5}")
    await _tab(page, "Allgemein")
    await page.get_by_label("Name", exact=True).fill("Shop-Hilfe")
    await _save(page)
    await expect(page.locator(".assistants-status")).to_contain_text("«Shop-Hilfe» gespeichert")

    [after] = await api_get(base_url, member, "/v1/assistants")
    for changing in ("name", "updated_at"):
        before.pop(changing), after.pop(changing)
    assert after == before
    assert after["api_catalog"]["has_credential"] is True  # the secret was kept, not dropped

    # Deleting asks once more before it acts.
    await page.get_by_role("button", name="Shop-Hilfe bearbeiten").click()
    await page.get_by_role("button", name="Diesen Assistenten löschen").click()
    assert await api_get(base_url, member, "/v1/assistants") != []
    await page.get_by_role("button", name="Ja, löschen").click()
    await expect(page.locator(".assistants-status")).to_have_text(
        "Assistent «Shop-Hilfe» gelöscht."
    )
    await expect(page.get_by_text("Noch keine Assistenten.")).to_be_visible()
    assert await api_get(base_url, member, "/v1/assistants") == []
