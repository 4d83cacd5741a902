"""Money settings are the operator's: a mandate admin may lower the prepaid balance and the
monthly limit and switch unpriced models off — raising or removing either amount and allowing
unpriced models is 403 and changes nothing. Platform admins do all of it, for any mandate, and
top balances up; the amounts hold under concurrent charges."""

from __future__ import annotations

import asyncio
from typing import Any

import httpx
import pytest

from agentur.ai.billing.budget_changes import change_as_mandate_admin
from agentur.ai.billing.ledger import LedgerRecord, record_call
from agentur.ai.mandate_ai_settings import (
    MandateAiConfig,
    load_mandate_ai_config,
    update_mandate_ai_settings,
)
from agentur.context import Role
from agentur.runtime import Runtime
from tests.api.files_helpers import assert_problem
from tests.conftest import Member, Tenants

URL = "/v1/admin/ai-settings"


def operator_url(mandate_id: str, *rest: str) -> str:
    return "/".join([f"/v1/admin/mandates/{mandate_id}/ai-settings", *rest])


async def _settings(client: httpx.AsyncClient, member: Member) -> dict[str, Any]:
    response = await client.get(URL, headers=member.headers)
    assert response.status_code == 200, response.text
    return response.json()


@pytest.mark.parametrize(
    ("change", "named"),
    [
        ({"balance_chf": 999_999}, "balance_chf"),  # the raise
        ({"balance_chf": None}, "balance_chf"),  # no balance: nothing limits spending
        ({"monthly_limit_chf": 200}, "monthly_limit_chf"),
        ({"monthly_limit_chf": None}, "monthly_limit_chf"),  # the default here: no limit
        ({"allow_unpriced": True}, "allow_unpriced"),
        # A raise hidden among allowed changes refuses the whole request.
        ({"custom_terms": ["Acme"], "monthly_limit_chf": 50, "balance_chf": 80}, "balance_chf"),
    ],
)
async def test_a_mandate_admin_cannot_widen_spending(
    client: httpx.AsyncClient,
    tenants: Tenants,
    runtime: Runtime,
    change: dict[str, Any],
    named: str,
) -> None:
    admin = await tenants.member(role=Role.admin)
    async with runtime.database.transaction() as session:  # set by the operator before
        await update_mandate_ai_settings(
            session, admin.mandate_id, {"balance_chf": 75.0, "monthly_limit_chf": 100.0}
        )
    before = await _settings(client, admin)
    refused = await client.patch(URL, json=change, headers=admin.headers)
    problem = assert_problem(refused, 403, named, "platform admin")
    assert "lower" in problem["detail"]
    assert await _settings(client, admin) == before  # nothing changed, not even the terms
    config = await runtime.ai.store.mandate_config(admin.mandate_id)
    assert (config.balance_chf, config.monthly_limit_chf) == (75.0, 100.0)
    assert config.allow_unpriced is False


async def test_a_mandate_admin_may_lower_and_see_usage(
    client: httpx.AsyncClient, tenants: Tenants, runtime: Runtime
) -> None:
    admin = await tenants.member(role=Role.admin)
    # From no balance and no limit (the defaults here), any amount is lower.
    first = await client.patch(
        URL, json={"balance_chf": 40, "monthly_limit_chf": 30}, headers=admin.headers
    )
    assert first.status_code == 200, first.text
    assert (first.json()["balance_chf"], first.json()["monthly_limit_chf"]) == (40, 30)
    lowered = await client.patch(
        URL,
        json={"balance_chf": 10.5, "monthly_limit_chf": 30, "allow_unpriced": False},
        headers=admin.headers,
    )
    assert lowered.status_code == 200, lowered.text
    assert (lowered.json()["balance_chf"], lowered.json()["monthly_limit_chf"]) == (10.5, 30)
    config = await runtime.ai.store.mandate_config(admin.mandate_id)
    assert (config.balance_chf, config.monthly_limit_chf) == (10.5, 30)  # enforced right away
    usage = await client.get("/v1/billing/limits", headers=admin.headers)
    assert usage.json()["balance_chf"] == 10.5 and usage.json()["monthly_limit_chf"] == 30
    # Other mandates are the operator's business.
    other = await client.get(operator_url(admin.mandate_id), headers=admin.headers)
    assert_problem(other, 403, "platform admins")


async def test_the_operator_may_do_all_for_any_mandate(
    client: httpx.AsyncClient, tenants: Tenants, runtime: Runtime
) -> None:
    admin = await tenants.member(role=Role.admin)
    operator = await tenants.member("platform", role=Role.admin, platform_admin=True)
    await client.patch(URL, json={"balance_chf": 5, "monthly_limit_chf": 20}, headers=admin.headers)
    raised = await client.patch(
        operator_url(admin.mandate_id),
        json={"balance_chf": 999_999, "monthly_limit_chf": None, "allow_unpriced": True},
        headers=operator.headers,
    )
    assert raised.status_code == 200, raised.text
    body = raised.json()
    assert (body["balance_chf"], body["monthly_limit_chf"], body["allow_unpriced"]) == (
        999_999,
        None,
        True,
    )
    assert (await _settings(client, admin))["balance_chf"] == 999_999  # the admin sees it
    config = await runtime.ai.store.mandate_config(admin.mandate_id)
    assert config.balance_chf == 999_999 and config.allow_unpriced is True

    topped = await client.post(
        operator_url(admin.mandate_id, "top-ups"),
        json={"amount_chf": 0.5},
        headers=operator.headers,
    )
    assert topped.status_code == 200 and topped.json()["balance_chf"] == 999_999.5
    # The operator's own mandate through the mandate route, as its (platform) admin.
    own = await client.patch(URL, json={"allow_unpriced": True}, headers=operator.headers)
    assert own.status_code == 200 and own.json()["allow_unpriced"] is True
    for method, url, body in (
        ("GET", operator_url("no-such-mandate"), None),
        ("PATCH", operator_url("no-such-mandate"), {"balance_chf": 1}),
        ("POST", operator_url("no-such-mandate", "top-ups"), {"amount_chf": 1}),
    ):
        missing = await client.request(method, url, json=body, headers=operator.headers)
        assert_problem(missing, 404, "no-such-mandate")
    for amount in (0, -1, 1e12):
        bad = await client.post(
            operator_url(admin.mandate_id, "top-ups"),
            json={"amount_chf": amount},
            headers=operator.headers,
        )
        assert_problem(bad, 422, "amount_chf")
    denied = await client.post(
        operator_url(admin.mandate_id, "top-ups"), json={"amount_chf": 5}, headers=admin.headers
    )
    assert_problem(denied, 403, "platform admins")


async def test_top_ups_and_charges_add_up_under_concurrency(
    client: httpx.AsyncClient, tenants: Tenants, runtime: Runtime
) -> None:
    admin = await tenants.member(role=Role.admin)
    operator = await tenants.member("platform", role=Role.admin, platform_admin=True)
    url = operator_url(admin.mandate_id, "top-ups")

    async def top_up() -> int:
        response = await client.post(url, json={"amount_chf": 1.0}, headers=operator.headers)
        return response.status_code

    async def charge() -> None:
        async with runtime.database.transaction() as session:
            await record_call(session, _charge(admin.mandate_id, 0.25))

    first = await top_up()  # starts the balance
    outcomes = await asyncio.gather(*(top_up() for _ in range(20)), *(charge() for _ in range(8)))
    assert first == 200 and outcomes[:20] == [200] * 20
    assert (await _settings(client, admin))["balance_chf"] == pytest.approx(21 - 8 * 0.25)


async def test_lowering_never_raises_when_a_charge_came_in_between(
    runtime: Runtime, tenants: Tenants
) -> None:
    """The admin read 100 and asks for 80; a charge of 30 commits in between: 70 stays."""
    admin = await tenants.member(role=Role.admin)
    settings = runtime.ai.settings
    async with runtime.database.transaction() as session:
        await update_mandate_ai_settings(session, admin.mandate_id, {"balance_chf": 100.0})
    async with runtime.database.session() as session:
        seen = await load_mandate_ai_config(session, admin.mandate_id, settings)
    async with runtime.database.transaction() as session:
        await record_call(session, _charge(admin.mandate_id, 30.0))
    async with runtime.database.transaction() as session:
        defaults = MandateAiConfig.defaults(settings)
        await change_as_mandate_admin(
            session, admin.mandate_id, {"balance_chf": 80.0}, seen, defaults
        )
    async with runtime.database.session() as session:
        now = await load_mandate_ai_config(session, admin.mandate_id, settings)
    assert now.balance_chf == 70.0


def _charge(mandate_id: str, cost_chf: float) -> LedgerRecord:
    return LedgerRecord(
        mandate_id=mandate_id,
        user_id="u",
        workflow_id=None,
        operation="agent",
        model="paid:m",
        provider="paid",
        input_tokens=1,
        output_tokens=1,
        cached_tokens=0,
        cache_write_tokens=0,
        cost_usd=cost_chf,
        cost_chf=cost_chf,
        usd_to_chf=1.0,
    )
