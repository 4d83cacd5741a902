"""Spending never overdraws, over real HTTP in the OpenAI and Anthropic wire formats: 50
concurrent calls to a server that reports three times the prompt tokens a chars/4 estimate
gives (and the most output it was allowed) end with the balance at or above zero and one
ledger row per answered call, because a call's hold bounds the prompt by its UTF-8 bytes. A
server that bills beyond even that bound takes the balance below zero by that call's excess
once, and the mandate gets no further hold until it is topped up."""

from __future__ import annotations

import asyncio
import math
from collections.abc import Callable
from typing import Any

import pytest
from sqlalchemy import func, select

from agentur.ai.billing.pricing import MESSAGE_OVERHEAD_TOKENS
from agentur.ai.gateway_errors import BudgetExceededError
from agentur.ai.messages import AiResponse
from agentur.ai.providers.anthropic import AnthropicProvider
from agentur.ai.providers.openai import OpenAIProvider
from agentur.storage.models.ai import AiLedgerEntry, AiReservation, MandateAiSettings
from tests.ai.gateway.conftest import ask, spec
from tests.ai.wire_servers import (
    ReceivedRequest,
    Reply,
    WireServer,
    anthropic_stream,
    anthropic_text,
    openai_stream,
    openai_text,
)

CALLS = 50
# German text: more UTF-8 bytes than characters, so a character count would not bound it.
PROMPT = "Grüezi mitenand, wie gaht's? " * 40
OUTPUT_LIMIT = 100
PRICES = (1.0, 2.0)  # USD per million input / output tokens
USD_TO_CHF = 0.9
# What agentur used to hold the prompt at: ~4 characters per token plus the message framing.
ESTIMATE = math.ceil(len(PROMPT) / 4) + MESSAGE_OVERHEAD_TOKENS
BOUND = len(PROMPT.encode()) + MESSAGE_OVERHEAD_TOKENS


def _chf(input_tokens: int, output_tokens: int) -> float:
    return (input_tokens * PRICES[0] + output_tokens * PRICES[1]) / 1e6 * USD_TO_CHF


HOLD_CHF = _chf(BOUND, OUTPUT_LIMIT)


def _reporting(
    prompt_tokens: int, streamed: Callable[..., Reply], whole: Callable[..., Reply]
) -> Callable[[ReceivedRequest], Reply]:
    """Answers every call (streamed or not) after a pause that keeps all of them in flight,
    reporting `prompt_tokens` and the whole output limit the call was sent with."""

    def answer(request: ReceivedRequest) -> Reply:
        body: dict[str, Any] = request.json
        limit = body.get("max_tokens") or body.get("max_completion_tokens")
        assert limit == OUTPUT_LIMIT, body
        usage = {"input_tokens": prompt_tokens, "output_tokens": limit}
        reply = streamed("ok", **usage) if body.get("stream") else whole("ok", **usage)
        return reply.delayed(0.3)

    return answer


SERVERS = {
    "openai": (OpenAIProvider, openai_stream, openai_text),
    "anthropic": (AnthropicProvider, anthropic_stream, anthropic_text),
}


def _gateway(request: pytest.FixtureRequest, gateway, vendor: str, prompt_tokens: int):  # type: ignore[no-untyped-def]
    adapter, streamed, whole = SERVERS[vendor]
    server: WireServer = request.getfixturevalue(f"{vendor}_server")
    server.default_reply = _reporting(prompt_tokens, streamed, whole)
    model = spec(vendor, "m", price=PRICES, max_output_tokens=OUTPUT_LIMIT)
    return gateway(adapter(api_key="k", base_url=server.base_url, models=[model]))


async def _books(runtime, mandate_id: str) -> tuple[float, int, float, int]:  # type: ignore[no-untyped-def]
    """Balance, ledger rows, their total cost, and holds still open."""
    async with runtime.database.session() as session:
        balance = await session.scalar(
            select(MandateAiSettings.balance_chf).where(MandateAiSettings.mandate_id == mandate_id)
        )
        rows, spent = (
            await session.execute(
                select(func.count(), func.coalesce(func.sum(AiLedgerEntry.cost_chf), 0.0)).where(
                    AiLedgerEntry.mandate_id == mandate_id
                )
            )
        ).one()
        held = await session.scalar(select(func.count()).select_from(AiReservation))
    return float(balance), int(rows), float(spent), int(held)


@pytest.mark.slow
@pytest.mark.parametrize("vendor", sorted(SERVERS))
async def test_fifty_concurrent_calls_to_an_overcounting_server_never_overdraw(
    request: pytest.FixtureRequest, gateway, tenants, configure_mandate, runtime, vendor: str
):
    reported = 3 * ESTIMATE
    assert reported <= BOUND  # what the hold covers: 3× the estimate is still within bytes
    ai = _gateway(request, gateway, vendor, reported)
    member = await tenants.member()
    start = 20.5 * HOLD_CHF  # room for 20 holds at once
    await configure_mandate(member.mandate_id, balance_chf=start)
    try:
        results = await asyncio.gather(
            *(ai.call(ask(PROMPT), member.context) for _ in range(CALLS)),
            return_exceptions=True,
        )
    finally:
        await ai.aclose()
    answered = [r for r in results if isinstance(r, AiResponse)]
    refused = [r for r in results if isinstance(r, BudgetExceededError)]
    assert len(answered) + len(refused) == CALLS, [
        r for r in results if not isinstance(r, AiResponse | BudgetExceededError)
    ]
    assert len(answered) >= 20, len(answered)  # every hold that fitted ran
    balance, rows, spent, held = await _books(runtime, member.mandate_id)
    assert rows == len(answered) and held == 0
    assert spent == pytest.approx(len(answered) * _chf(reported, OUTPUT_LIMIT))
    assert balance == pytest.approx(start - spent)
    assert balance >= -1e-9, f"overdrawn to CHF {balance:.6f}"


@pytest.mark.slow
@pytest.mark.parametrize("vendor", sorted(SERVERS))
async def test_a_server_billing_beyond_the_bound_overdraws_once_then_gets_no_hold(
    request: pytest.FixtureRequest, gateway, tenants, configure_mandate, runtime, vendor: str
):
    reported = 3 * BOUND  # more tokens than the prompt has bytes: no tokenizer counts so
    ai = _gateway(request, gateway, vendor, reported)
    member = await tenants.member()
    start = 1.5 * HOLD_CHF
    await configure_mandate(member.mandate_id, balance_chf=start)
    try:
        first = await ai.call(ask(PROMPT), member.context)
        excess = first.cost_chf - HOLD_CHF
        assert excess > 0
        balance, *_ = await _books(runtime, member.mandate_id)
        assert -excess <= balance < 0  # below zero by at most this one call's excess
        with pytest.raises(BudgetExceededError, match="below zero"):
            await ai.call(ask("hi"), member.context)
        await configure_mandate(member.mandate_id, balance_chf=start)  # topped up
        assert isinstance(await ai.call(ask(PROMPT), member.context), AiResponse)
    finally:
        await ai.aclose()
    _, rows, _, held = await _books(runtime, member.mandate_id)
    assert rows == 2 and held == 0
