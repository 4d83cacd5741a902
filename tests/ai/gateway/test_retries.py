"""G6: retries with backoff, fallback to the next model, streams that broke mid-way."""

from __future__ import annotations

import random
from collections.abc import AsyncIterator

import pytest

from agentur.ai.gateway_errors import ProviderUnavailableError
from agentur.ai.messages import AiRequest, StreamDone, StreamEvent, TextDelta
from agentur.ai.model_spec import ModelSpec
from agentur.ai.providers.base import ProviderError
from agentur.ai.providers.scripted import ScriptedProvider, ScriptedTurn
from agentur.ai.retry import RetryPolicy
from agentur.ai.service import AiService, StreamError
from agentur.ai.settings import AiSettings
from agentur.context import RequestContext, Role
from tests.ai.gateway.conftest import Sleeps, ask, spec

CONTEXT = RequestContext("u", "m", Role.member)


def _fail(provider: str, status: int, retry_after: float | None = None) -> ScriptedTurn:
    return ScriptedTurn(
        error=ProviderError(
            f"HTTP {status}",
            provider=provider,
            status_code=status,
            retryable=status == 429 or status >= 500,
            retry_after_seconds=retry_after,
        )
    )


def _two(primary_script, secondary_script=()):
    primary = ScriptedProvider(list(primary_script), name="primary", model_specs=[spec("primary")])
    secondary = ScriptedProvider(
        list(secondary_script), name="secondary", model_specs=[spec("secondary")]
    )
    sleeps = Sleeps()
    ai = AiService(
        [primary, secondary],
        settings=AiSettings(default_model="primary:m", max_retries=2, retry_base_delay_seconds=1),
        sleep=sleeps,
    )
    return ai, primary, secondary, sleeps


async def test_429_honours_retry_after_then_succeeds():
    ai, primary, _, sleeps = _two([_fail("primary", 429, 3.0), ScriptedTurn(text="ok")])
    response = await ai.call(ask("hi"), CONTEXT)
    assert response.text == "ok" and response.model == "primary:m"
    assert sleeps == [3.0]
    assert len(primary.received) == 2


async def test_5xx_retries_with_backoff_then_falls_back():
    ai, primary, secondary, sleeps = _two(
        [_fail("primary", 503)] * 3, [ScriptedTurn(text="from secondary")]
    )
    response = await ai.call(ask("hi"), CONTEXT)
    assert response.text == "from secondary" and response.model == "secondary:m"
    assert len(primary.received) == 3  # 1 try + 2 retries
    assert 0.5 <= sleeps[0] <= 1.0 and 1.0 <= sleeps[1] <= 2.0  # exponential with jitter


async def test_400_is_not_retried():
    ai, primary, secondary, sleeps = _two([_fail("primary", 400)], [_fail("secondary", 400)])
    with pytest.raises(ProviderUnavailableError) as raised:
        await ai.call(ask("hi"), CONTEXT)
    assert len(primary.received) == 1 and len(secondary.received) == 1
    assert sleeps == []
    assert "primary m: HTTP 400" in raised.value.detail


def test_backoff_delay_is_capped_and_jittered():
    policy = RetryPolicy(base_delay_seconds=1, max_delay_seconds=5)
    error = ProviderError("x", provider="p", retryable=True)
    rng = random.Random(1)
    delays = [policy.delay(attempt, error, rng) for attempt in range(1, 8)]
    assert all(d <= 5 for d in delays) and delays[0] <= 1
    capped = ProviderError("x", provider="p", retryable=True, retry_after_seconds=600)
    assert policy.delay(1, capped) == 5


class BrokenStream:
    """Streams some text, then the connection breaks (a retryable error)."""

    name = "broken"

    def __init__(self, text_before_break: str) -> None:
        self.text_before_break = text_before_break
        self.calls = 0

    def models(self) -> list[ModelSpec]:
        return [spec("broken")]

    async def complete(self, model, request):  # pragma: no cover - not used
        raise NotImplementedError

    async def stream(self, model: ModelSpec, request: AiRequest) -> AsyncIterator[StreamEvent]:
        self.calls += 1
        if self.text_before_break:
            yield TextDelta(self.text_before_break)
        raise ProviderError("stream broke", provider=self.name, retryable=True)

    async def embed(self, model, texts):  # pragma: no cover - not used
        raise NotImplementedError


async def test_stream_that_emitted_text_ends_with_an_error_event_not_a_restart():
    broken = BrokenStream("Half an ans")
    fallback = ScriptedProvider(name="secondary", model_specs=[spec("secondary")])
    ai = AiService(
        [broken, fallback], settings=AiSettings(default_model="broken:m"), sleep=Sleeps()
    )
    events = [e async for e in ai.stream(ask("hi"), CONTEXT)]
    assert events[0] == TextDelta("Half an ans")
    assert isinstance(events[-1], StreamError) and events[-1].model == "broken:m"
    assert broken.calls == 1 and fallback.received == []


async def test_stream_failing_before_text_is_retried_then_falls_back():
    broken = BrokenStream("")
    fallback = ScriptedProvider(
        [ScriptedTurn(text="fine")], name="secondary", model_specs=[spec("secondary")]
    )
    sleeps = Sleeps()
    ai = AiService(
        [broken, fallback],
        settings=AiSettings(default_model="broken:m", max_retries=1),
        sleep=sleeps,
    )
    events = [e async for e in ai.stream(ask("hi"), CONTEXT)]
    assert broken.calls == 2 and len(sleeps) == 1
    assert isinstance(events[-1], StreamDone) and events[-1].response.text == "fine"
