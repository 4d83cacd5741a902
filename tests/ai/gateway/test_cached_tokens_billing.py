"""Cached input tokens from every provider's usage reach the ledger and are billed at the cached
price: OpenAI `prompt_tokens_details.cached_tokens`, Anthropic
`cache_read_input_tokens` / `cache_creation_input_tokens`, Gemini `cachedContentTokenCount`."""

from __future__ import annotations

from typing import Any

import pytest
from sqlalchemy import select

from agentur.ai.billing.pricing import cost_usd
from agentur.ai.messages import Usage
from agentur.ai.model_catalog import with_prices
from agentur.ai.providers.anthropic import AnthropicProvider
from agentur.ai.providers.google import GoogleProvider
from agentur.ai.providers.openai import OpenAIProvider
from agentur.ai.settings import PriceOverride
from agentur.storage.models.ai import AiLedgerEntry
from tests.ai.gateway.conftest import ask, spec
from tests.ai.wire_servers import WireServer, anthropic_stream, google_text, openai_stream

# USD per million tokens: input 2, cached input 0.5, cache write 2.5, output 8.
PRICES = PriceOverride(input=2.0, output=8.0, cached_input=0.5, cache_write=2.5)


def _priced(provider: str, name: str):
    return with_prices(spec(provider, name), {f"{provider}:{name}": PRICES})


async def _only_row(runtime) -> AiLedgerEntry:
    async with runtime.database.session() as session:
        rows = list(await session.scalars(select(AiLedgerEntry)))
    assert len(rows) == 1
    return rows[0]


CASES = [
    (
        "openai_server",
        OpenAIProvider,
        "openai",
        openai_stream("ok", input_tokens=2_000, output_tokens=100, cached_tokens=1_536),
        (1_536, 0),
    ),
    (
        "anthropic_server",
        AnthropicProvider,
        "anthropic",
        # Anthropic counts the three parts apart; the adapter adds them up to the prompt.
        anthropic_stream(
            "ok",
            input_tokens=200,
            output_tokens=100,
            cache_read_tokens=1_536,
            cache_creation_tokens=264,
        ),
        (1_536, 264),
    ),
    (
        "google_server",
        GoogleProvider,
        "google",
        google_text("ok", input_tokens=2_000, output_tokens=100, cached_tokens=1_536),
        (1_536, 0),
    ),
]


@pytest.mark.parametrize(
    ("fixture", "adapter", "provider", "reply", "cache"),
    CASES,
    ids=["openai", "anthropic", "google"],
)
async def test_cached_tokens_are_recorded_and_billed_at_the_cached_price(
    request: pytest.FixtureRequest,
    gateway,
    tenants,
    runtime,
    fixture: str,
    adapter: type,
    provider: str,
    reply: Any,
    cache: tuple[int, int],
) -> None:
    server: WireServer = request.getfixturevalue(fixture)
    server.enqueue(reply)
    model = _priced(provider, "m")
    ai = gateway(adapter(api_key="k", base_url=server.base_url, models=[model]))
    member = await tenants.member()
    try:
        if provider == "google":
            response = await ai.call(ask("hello"), member.context)
        else:
            response = None
            async for event in ai.stream(ask("hello"), member.context):
                response = getattr(event, "response", response)
    finally:
        await ai.aclose()
    cached, written = cache
    row = await _only_row(runtime)
    assert (row.input_tokens, row.output_tokens) == (2_000, 100)
    assert (row.cached_tokens, row.cache_write_tokens) == (cached, written)
    uncached = 2_000 - cached - written
    usd = (uncached * 2.0 + cached * 0.5 + written * 2.5 + 100 * 8.0) / 1e6
    assert row.cost_usd == pytest.approx(usd)
    assert row.cost_chf == pytest.approx(usd * 0.9)
    assert response is not None and response.cost_chf == pytest.approx(usd * 0.9)
    # Cheaper than the same prompt without the cache (for every provider here).
    assert usd < (2_000 * 2.0 + 100 * 8.0) / 1e6


def test_genai_prices_give_cache_prices() -> None:
    """The offline price table knows cache prices: Anthropic's writes cost more than input,
    reads much less; a model without cache prices bills cached tokens at the input price."""
    haiku = with_prices(spec("anthropic", "claude-haiku-4-5", price=(None, None)), {})
    assert haiku.input_price_usd_per_mtok is not None
    assert haiku.cache_write_price_usd_per_mtok > haiku.input_price_usd_per_mtok
    assert haiku.cached_input_price_usd_per_mtok < haiku.input_price_usd_per_mtok / 5
    plain = spec("local", "m", price=(1.0, 2.0))  # no cache prices known
    usage = Usage(input_tokens=1_000, output_tokens=0, cached_tokens=600, cache_write_tokens=300)
    assert cost_usd(plain, usage) == pytest.approx(1_000 * 1.0 / 1e6)
