"""G5: preflight refusals, ledger rows, unpriced models, balance, usage totals."""

from __future__ import annotations

import pytest
from sqlalchemy import select

from agentur.ai.gateway_errors import BudgetExceededError, ModelNotAllowedError
from agentur.ai.messages import CallOptions
from agentur.ai.providers.scripted import ScriptedProvider, ScriptedTurn
from agentur.storage.models.ai import AiLedgerEntry, MandateAiSettings
from tests.ai.gateway.conftest import ask, spec

EMBEDDING = spec("paid", "embed", caps=frozenset({"embeddings"}), price=(0.5, 0.0))


def _paid(script=()) -> ScriptedProvider:
    # 1 USD / Mtok in, 2 USD / Mtok out, max 1000 output tokens.
    return ScriptedProvider(list(script), name="paid", model_specs=[spec("paid"), EMBEDDING])


async def _ledger(runtime):
    async with runtime.database.session() as session:
        return list(await session.scalars(select(AiLedgerEntry).order_by(AiLedgerEntry.created_at)))


async def test_every_call_writes_a_ledger_row_in_chf(gateway, tenants, runtime):
    member = await tenants.member()
    ai = gateway(_paid([ScriptedTurn(text="x" * 400)]))
    response = await ai.call(ask("y" * 4000, workflow_id="wf-b"), member.context)
    # 1000 input tokens * 1 USD/M + 100 output * 2 USD/M = 0.0012 USD, at 0.9 CHF/USD.
    assert response.cost_chf == pytest.approx(0.0012 * 0.9)
    embedded = await ai.embed(["z" * 400], "index", member.context, workflow_id="wf-b")
    assert embedded.cost_chf == pytest.approx(100 * 0.5 / 1e6 * 0.9)
    rows = await _ledger(runtime)
    assert [(r.operation, r.model) for r in rows] == [
        ("agent", "paid:m"),
        ("embedding", "paid:embed"),
    ]
    chat = rows[0]
    assert (chat.mandate_id, chat.user_id, chat.workflow_id) == (
        member.mandate_id,
        member.user_id,
        "wf-b",
    )
    assert (chat.input_tokens, chat.output_tokens) == (1000, 100)
    assert chat.cost_chf == pytest.approx(response.cost_chf) and chat.usd_to_chf == 0.9


async def test_preflight_refuses_when_balance_cannot_cover_the_worst_case(
    gateway, tenants, configure_mandate, runtime
):
    member = await tenants.member()
    provider = _paid()
    ai = gateway(provider)
    # Worst case: ~1 input token + 1000 output tokens at 2 USD/M = ~0.0018 CHF.
    await configure_mandate(member.mandate_id, balance_chf=0.001)
    with pytest.raises(BudgetExceededError, match="balance of CHF 0.0010"):
        await ai.call(ask("hi"), member.context)
    assert provider.received == []
    # A smaller max output fits the balance; the cost is deducted afterwards.
    response = await ai.call(ask("hi", options=CallOptions(max_output_tokens=100)), member.context)
    async with runtime.database.session() as session:
        settings = await session.scalar(select(MandateAiSettings))
    assert settings.balance_chf == pytest.approx(0.001 - response.cost_chf)


async def test_monthly_limit_counts_this_months_ledger(gateway, tenants, configure_mandate):
    member = await tenants.member()
    ai = gateway(_paid([ScriptedTurn(text="x" * 4000)]))
    await configure_mandate(member.mandate_id, monthly_limit_chf=0.003)
    await ai.call(ask("hi"), member.context)  # spends ~0.0018 CHF
    with pytest.raises(BudgetExceededError, match="monthly AI limit"):
        await ai.call(ask("hi"), member.context)


async def test_unpriced_model_is_refused_unless_allowed(
    gateway, tenants, configure_mandate, runtime
):
    member = await tenants.member()
    ai = gateway(
        ScriptedProvider(name="mystery", model_specs=[spec("mystery", price=(None, None))])
    )
    with pytest.raises(ModelNotAllowedError, match="no known price"):
        await ai.call(ask("hi"), member.context)
    await configure_mandate(member.mandate_id, allow_unpriced=True)
    ai.store.forget_mandate_config(member.mandate_id)
    response = await ai.call(ask("hi"), member.context)
    assert response.cost_chf == 0.0
    assert len(await _ledger(runtime)) == 1


async def test_price_overrides_from_settings_apply(gateway, tenants):
    member = await tenants.member()
    ai = gateway(
        ScriptedProvider(
            [ScriptedTurn(text="")],
            name="mystery",
            model_specs=[spec("mystery", price=(None, None))],
        ),
        model_prices={"mystery:m": {"input": 10.0, "output": 0.0}},
    )
    response = await ai.call(ask("y" * 4000), member.context)
    assert response.cost_chf == pytest.approx(1000 * 10 / 1e6 * 0.9)
