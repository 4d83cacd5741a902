"""G5 under concurrency: N calls at once never spend more than the balance or the monthly
limit — each call's worst case is held before it runs, and released when it fails."""

from __future__ import annotations

import asyncio
from datetime import timedelta

import pytest
from sqlalchemy import func, select, update

from agentur.ai.gateway_errors import BudgetExceededError, ProviderUnavailableError
from agentur.ai.messages import AiRequest, AiResponse
from agentur.ai.model_spec import ModelSpec
from agentur.ai.providers.base import ProviderError
from agentur.ai.providers.scripted import ScriptedProvider, ScriptedTurn
from agentur.context import utc_now
from agentur.storage.models.ai import AiLedgerEntry, AiReservation, MandateAiSettings
from tests.ai.gateway.conftest import ask, spec

CALLS = 10
# Worst case ≈ actual cost: ~1 input token + 1000 output tokens at 2 USD/M, 0.9 CHF/USD.
COST_CHF = (1 * 1.0 + 1000 * 2.0) / 1e6 * 0.9


class SlowProvider(ScriptedProvider):
    """Answers after a pause, so every concurrent call is in flight at the same time."""

    async def complete(self, model: ModelSpec, request: AiRequest) -> AiResponse:
        await asyncio.sleep(0.05)
        return await super().complete(model, request)


def _provider() -> SlowProvider:
    return SlowProvider(
        [], name="paid", model_specs=[spec("paid")], fallback=ScriptedTurn(text="x" * 4000)
    )


async def _fire(ai, context) -> list[object]:  # type: ignore[no-untyped-def]
    calls = [ai.call(ask("hi"), context) for _ in range(CALLS)]
    return await asyncio.gather(*calls, return_exceptions=True)


async def _spent_and_held(runtime, mandate_id: str) -> tuple[float, int]:  # type: ignore[no-untyped-def]
    async with runtime.database.session() as session:
        spent = await session.scalar(
            select(func.coalesce(func.sum(AiLedgerEntry.cost_chf), 0.0)).where(
                AiLedgerEntry.mandate_id == mandate_id
            )
        )
        held = await session.scalar(select(func.count()).select_from(AiReservation))
    return float(spent), int(held)


@pytest.mark.parametrize("budget", ["balance_chf", "monthly_limit_chf"])
async def test_concurrent_calls_never_spend_more_than_the_budget(
    gateway, tenants, configure_mandate, runtime, budget: str
):
    member = await tenants.member()
    ai = gateway(_provider())
    await configure_mandate(member.mandate_id, **{budget: 2.5 * COST_CHF})
    results = await _fire(ai, member.context)
    answered = [r for r in results if isinstance(r, AiResponse)]
    refused = [r for r in results if isinstance(r, BudgetExceededError)]
    assert len(answered) == 2 and len(refused) == CALLS - 2, results
    spent, held = await _spent_and_held(runtime, member.mandate_id)
    assert spent == pytest.approx(2 * COST_CHF, rel=0.01) and spent <= 2.5 * COST_CHF
    assert held == 0  # every hold was settled or released
    if budget == "balance_chf":
        async with runtime.database.session() as session:
            balance = await session.scalar(select(MandateAiSettings.balance_chf))
        assert balance == pytest.approx(0.5 * COST_CHF, rel=0.01)


async def test_a_failed_call_releases_its_hold(gateway, tenants, configure_mandate, runtime):
    member = await tenants.member()
    broken = ProviderError("down", provider="paid", status_code=400, retryable=False)
    provider = _provider()
    provider.script.append(ScriptedTurn(error=broken))
    ai = gateway(provider)
    await configure_mandate(member.mandate_id, balance_chf=1.5 * COST_CHF)
    with pytest.raises(ProviderUnavailableError):
        await ai.call(ask("hi"), member.context)
    assert await _spent_and_held(runtime, member.mandate_id) == (0.0, 0)
    # The whole balance is available again for the next call.
    assert isinstance(await ai.call(ask("hi"), member.context), AiResponse)


async def test_a_hold_left_by_a_dead_worker_expires(gateway, tenants, configure_mandate, runtime):
    member = await tenants.member()
    ai = gateway(_provider(), billing_reservation_seconds=60)
    await configure_mandate(member.mandate_id, balance_chf=1.5 * COST_CHF)
    # A worker that reserved and died: its hold blocks the budget until it expires.
    await ai.store.reserve(member.mandate_id, COST_CHF, "paid:m", utc_now())
    with pytest.raises(BudgetExceededError, match="held by calls in progress"):
        await ai.call(ask("hi"), member.context)
    # Its expiry passes (moved instead of waited for, so a slow machine cannot expire it early).
    async with runtime.database.session() as session:
        await session.execute(
            update(AiReservation).values(expires_at=utc_now() - timedelta(seconds=1))
        )
        await session.commit()
    assert isinstance(await ai.call(ask("hi"), member.context), AiResponse)
