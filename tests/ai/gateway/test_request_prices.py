"""Prices per request: search engines carry the vendor's price per call, on top of token
prices where the vendor bills tokens too; `AGENTUR_MODEL_PRICES` overrides either part; the
agent's budget plan treats the price per call as fixed, not as a price per output token."""

from __future__ import annotations

import pytest
from pydantic import ValidationError

from agentur.ai.billing.pricing import cost_usd
from agentur.ai.messages import Usage
from agentur.ai.model_catalog import catalog_specs, with_prices
from agentur.ai.settings import AiSettings
from agentur.tool_loop.budget import Budget
from tests.agent.support import chat_model


@pytest.fixture(autouse=True)
def no_price_settings(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("AGENTUR_MODEL_PRICES", raising=False)


def settings_with(prices: str) -> AiSettings:
    """AiSettings with `AGENTUR_MODEL_PRICES` set to `prices`, as a user sets it."""
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("AGENTUR_MODEL_PRICES", prices)
        return AiSettings()


def priced(provider: str, name: str, prices: str = "{}"):
    spec = next(s for s in catalog_specs(provider) if s.name == name)
    return with_prices(spec, settings_with(prices).model_prices)


def test_built_in_prices_per_request() -> None:
    basic, advanced = priced("tavily", "search"), priced("tavily", "search-advanced")
    assert (basic.request_price_usd, advanced.request_price_usd) == (0.008, 0.016)
    assert basic.is_priced and cost_usd(basic, Usage(5_000, 5_000)) == 0.008  # tokens free
    sonar = priced("perplexity", "sonar")
    assert sonar.request_price_usd == 0.005
    assert cost_usd(sonar, Usage(1_000_000, 0)) == pytest.approx(1.0 + 0.005)


def test_overrides_replace_the_part_they_name() -> None:
    cheaper = priced("tavily", "search", '{"tavily:search": {"request": 0.005}}')
    assert cheaper.request_price_usd == 0.005 and cheaper.input_price_usd_per_mtok == 0.0
    fee_only = priced("perplexity", "sonar", '{"perplexity:sonar": {"request": 0.008}}')
    assert fee_only.request_price_usd == 0.008
    assert fee_only.input_price_usd_per_mtok == 1.0  # genai-prices' token price kept
    tokens_only = priced("perplexity", "sonar", '{"perplexity:sonar": {"input": 2, "output": 3}}')
    assert tokens_only.input_price_usd_per_mtok == 2.0 and tokens_only.request_price_usd == 0.005


@pytest.mark.parametrize(
    ("prices", "message"),
    [
        ('{"a:b": {"input": 1}}', "both `input` and `output`"),
        ('{"a:b": {}}', "a `request` price"),
        ('{"a:b": {"request": 0.01, "cached_input": 1}}', "cache prices need"),
        ('{"a:b": {"request": -1}}', "greater than or equal to 0"),
    ],
)
def test_incomplete_overrides_are_refused(prices: str, message: str) -> None:
    with pytest.raises(ValidationError, match=message):
        settings_with(prices)


def test_budget_caps_output_around_a_fixed_price_per_call() -> None:
    """CHF 1 left, CHF 0.5 per call, CHF 0.001 per output token: 500 output tokens fit. If the
    price per call were taken for a per-token price, none would."""
    model = chat_model(
        input_price_usd_per_mtok=0.0,
        output_price_usd_per_mtok=1000.0,
        max_output_tokens=4000,
        request_price_usd=0.5,
    )
    plan = Budget(max_cost_chf=1.0, usd_to_chf=1.0, min_output_tokens=100).plan_call(model, 0)
    assert plan.allowed and plan.max_output_tokens in (499, 500)  # floored after float math
    assert 0.999 <= plan.worst_case_chf <= 1.0
