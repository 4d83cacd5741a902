"""The gateway's HTTP API: models, usage totals, the mandate's AI settings (admins only)."""

from __future__ import annotations

from agentur.ai.providers.scripted import ScriptedProvider, ScriptedTurn
from agentur.ai.service import AiService
from agentur.context import Role
from tests.ai.gateway.conftest import ask, spec


async def test_models_lists_active_models_with_prices(client, tenants, runtime):
    member = await tenants.member()
    # No provider configured: only the bundled offline embedding model, no chat model.
    offline = (await client.get("/v1/models", headers=member.headers)).json()["items"]
    assert all(m["capabilities"] == ["embeddings"] for m in offline)
    runtime.ai = AiService(
        [ScriptedProvider(name="paid", model_specs=[spec("paid")])],
        settings=runtime.ai.settings,
        store=runtime.ai.store,
    )
    body = (await client.get("/v1/models", headers=member.headers)).json()
    [model] = body["items"]
    assert model["id"] == "paid:m" and "tools" in model["capabilities"]
    assert model["input_price_usd_per_mtok"] == 1.0
    assert model["input_price_chf_per_mtok"] == round(body["usd_to_chf"], 6)


async def test_usage_totals_by_model_and_operation(client, tenants, runtime):
    member = await tenants.member()
    other = await tenants.member("globex")
    ai = AiService(
        [
            ScriptedProvider(
                [ScriptedTurn(text="a" * 400)] * 3, name="paid", model_specs=[spec("paid")]
            )
        ],
        settings=runtime.ai.settings,
        store=runtime.ai.store,
    )
    await ai.call(ask("q" * 400, workflow_id="wf-1"), member.context)
    await ai.call(ask("q" * 400, workflow_id="wf-2"), member.context)
    await ai.call(ask("q" * 400, workflow_id="wf-1"), other.context)
    body = (await client.get("/v1/billing/usage", headers=member.headers)).json()
    assert [(i["model"], i["operation"], i["calls"]) for i in body["items"]] == [
        ("paid:m", "agent", 2)
    ]
    assert body["items"][0]["input_tokens"] == 200
    one = await client.get(
        "/v1/billing/usage", params={"workflow_id": "wf-1"}, headers=member.headers
    )
    assert one.json()["items"][0]["calls"] == 1
    future = await client.get(
        "/v1/billing/usage", params={"from": "2999-01-01T00:00:00Z"}, headers=member.headers
    )
    assert future.json()["items"] == [] and future.json()["total_cost_chf"] == 0
    naive = await client.get(
        "/v1/billing/usage", params={"from": "2025-01-01T00:00:00"}, headers=member.headers
    )
    assert naive.status_code == 422


async def test_ai_settings_are_for_mandate_admins_only(client, tenants, runtime):
    admin = await tenants.member(role=Role.admin)
    member = await tenants.member()
    assert (await client.get("/v1/admin/ai-settings", headers=member.headers)).status_code == 403
    denied = await client.patch(
        "/v1/admin/ai-settings", json={"neutralization_policy": "off"}, headers=member.headers
    )
    assert denied.status_code == 403
    initial = (await client.get("/v1/admin/ai-settings", headers=admin.headers)).json()
    assert initial["neutralization_policy"] == "off" and initial["allowed_providers"] is None
    changed = await client.patch(
        "/v1/admin/ai-settings",
        json={
            "neutralization_policy": "block",
            "custom_terms": ["Acme AG"],
            "allowed_providers": ["paid"],
            "monthly_limit_chf": 50,
        },
        headers=admin.headers,
    )
    assert changed.status_code == 200, changed.text
    assert changed.json()["neutralization_policy"] == "block"
    assert changed.json()["monthly_limit_chf"] == 50
    # The gateway enforces it right away.
    config = await runtime.ai.store.mandate_config(admin.mandate_id)
    assert config.custom_terms == ("Acme AG",) and config.allowed_providers == {"paid"}
    bad = await client.patch(
        "/v1/admin/ai-settings", json={"neutralization_policy": "maybe"}, headers=admin.headers
    )
    assert bad.status_code == 422
