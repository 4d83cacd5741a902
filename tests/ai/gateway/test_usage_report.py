"""/v1/billing/daily and /v1/billing/limits: cost per day and model in the caller's time zone,
and the mandate's limits with what is left (the web app's Usage screen)."""

from __future__ import annotations

from datetime import UTC, date, datetime, timedelta
from zoneinfo import ZoneInfo

import httpx
from sqlalchemy import update

from agentur.ai.billing.usage_report import daily_usage
from agentur.runtime import Runtime
from agentur.storage.models.ai import AiLedgerEntry, MandateAiSettings
from tests.api.files_helpers import assert_problem
from tests.conftest import Member, Tenants

ZURICH = ZoneInfo("Europe/Zurich")


async def charge(
    runtime: Runtime, member: Member, model: str, cost_chf: float, at: datetime
) -> None:
    async with runtime.database.transaction() as db:
        db.add(
            AiLedgerEntry(
                mandate_id=member.mandate_id,
                user_id=member.user_id,
                operation="agent",
                model=model,
                provider=model.split(":")[0],
                input_tokens=100,
                output_tokens=10,
                cost_chf=cost_chf,
                usd_to_chf=0.9,
                created_at=at,
            )
        )


async def test_days_run_midnight_to_midnight_in_the_given_zone(
    runtime: Runtime, tenants: Tenants
) -> None:
    acme = await tenants.member("acme")
    globex = await tenants.member("globex")
    # 22:30 UTC is 23:30 in Zurich (CET) on the 10th; 23:30 UTC is already the 11th there
    await charge(runtime, acme, "p:a", 1.0, datetime(2026, 3, 10, 22, 30, tzinfo=UTC))
    await charge(runtime, acme, "p:a", 2.0, datetime(2026, 3, 10, 23, 30, tzinfo=UTC))
    await charge(runtime, acme, "p:b", 0.5, datetime(2026, 3, 11, 12, 0, tzinfo=UTC))
    await charge(runtime, globex, "p:a", 100.0, datetime(2026, 3, 11, 12, 0, tzinfo=UTC))

    async def report(zone: ZoneInfo) -> list[tuple[date, list[tuple[str, int, float]]]]:
        async with runtime.database.session() as db:
            days = await daily_usage(
                db, acme.mandate_id, last_day=date(2026, 3, 11), days=3, zone=zone
            )
        return [(d.day, [(m.model, m.calls, m.cost_chf) for m in d.models]) for d in days]

    assert await report(ZURICH) == [
        (date(2026, 3, 11), [("p:a", 1, 2.0), ("p:b", 1, 0.5)]),
        (date(2026, 3, 10), [("p:a", 1, 1.0)]),
        (date(2026, 3, 9), []),
    ]
    assert await report(ZoneInfo("UTC")) == [
        (date(2026, 3, 11), [("p:b", 1, 0.5)]),
        (date(2026, 3, 10), [("p:a", 2, 3.0)]),
        (date(2026, 3, 9), []),
    ]


async def test_daily_route_counts_today_in_the_callers_zone_and_only_their_mandate(
    client: httpx.AsyncClient, runtime: Runtime, tenants: Tenants
) -> None:
    acme = await tenants.member("acme")
    globex = await tenants.member("globex")
    now = datetime.now(UTC)
    await charge(runtime, acme, "p:a", 1.25, now)
    await charge(runtime, acme, "p:a", 4.0, now - timedelta(days=40))  # outside the window
    await charge(runtime, globex, "p:a", 100.0, now)
    headers = {**acme.headers, "X-User-Timezone": "Pacific/Auckland"}
    response = await client.get("/v1/billing/daily", params={"days": 7}, headers=headers)
    assert response.status_code == 200, response.text
    body = response.json()
    assert body["timezone"] == "Pacific/Auckland"
    assert len(body["days"]) == 7
    today = now.astimezone(ZoneInfo("Pacific/Auckland")).date().isoformat()
    assert body["days"][0]["date"] == today
    assert body["days"][0]["models"] == [
        {"model": "p:a", "calls": 1, "input_tokens": 100, "output_tokens": 10, "cost_chf": 1.25}
    ]
    assert body["total_cost_chf"] == 1.25
    too_many = await client.get("/v1/billing/daily", params={"days": 93}, headers=headers)
    assert_problem(too_many, 422, "days")


async def test_limits_show_what_is_left_this_month(
    client: httpx.AsyncClient, runtime: Runtime, tenants: Tenants
) -> None:
    acme = await tenants.member("acme")
    unlimited = (await client.get("/v1/billing/limits", headers=acme.headers)).json()
    assert unlimited["monthly_limit_chf"] is None
    assert unlimited["remaining_this_month_chf"] is None
    assert unlimited["spent_this_month_chf"] == 0
    async with runtime.database.transaction() as db:
        db.add(MandateAiSettings(mandate_id=acme.mandate_id, monthly_limit_chf=50.0))
    await charge(runtime, acme, "p:a", 12.5, datetime.now(UTC))
    limited = (await client.get("/v1/billing/limits", headers=acme.headers)).json()
    assert limited["monthly_limit_chf"] == 50.0
    assert limited["spent_this_month_chf"] == 12.5
    assert limited["remaining_this_month_chf"] == 37.5
    assert limited["balance_chf"] is None
    async with runtime.database.transaction() as db:
        await db.execute(
            update(MandateAiSettings)
            .where(MandateAiSettings.mandate_id == acme.mandate_id)
            .values(balance_chf=7.0)
        )
    assert (await client.get("/v1/billing/limits", headers=acme.headers)).json()[
        "balance_chf"
    ] == 7.0
