"""Failures on the wire become `ProviderError` with the right `retryable` and wait.

Every vendor adapter against its local server: 429 with Retry-After, 5xx, other 4xx, slow
replies (timeouts), streams cut mid-way or ending without their terminal event.
"""

from __future__ import annotations

import socket
from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from email.utils import format_datetime
from typing import Any

import httpx
import pytest

from agentur.ai.model_spec import ModelSpec
from agentur.ai.providers.anthropic import AnthropicProvider
from agentur.ai.providers.base import ErrorKind, ModelProvider, ProviderError
from agentur.ai.providers.google import GoogleProvider
from agentur.ai.providers.http_errors import parse_retry_after
from agentur.ai.providers.http_transport import Timeouts
from agentur.ai.providers.mistral import MistralProvider
from agentur.ai.providers.openai import OpenAIProvider
from tests.ai.providers.helpers import ask, collect, spec
from tests.ai.wire_servers import (
    Reply,
    WireServer,
    anthropic_error,
    anthropic_stream,
    anthropic_stream_error,
    google_error,
    google_stream,
    openai_error,
    openai_stream,
)

KEY = "sk-very-secret-key-123"


@dataclass(frozen=True)
class Vendor:
    fixture: str
    make: Callable[..., Any]
    model: ModelSpec
    error: Callable[..., Reply]
    stream: Callable[..., Reply]
    unfinished_stream: Reply  # ends cleanly but without the vendor's terminal event


VENDORS = [
    Vendor(
        "openai_server",
        OpenAIProvider,
        spec("openai", "gpt-4.1"),
        openai_error,
        openai_stream,
        Reply.sse([{"choices": [{"index": 0, "delta": {"content": "partial"}}]}]),
    ),
    Vendor(
        "mistral_server",
        MistralProvider,
        spec("mistral", "mistral-small-latest"),
        openai_error,
        openai_stream,
        Reply.sse([{"choices": [{"index": 0, "delta": {"content": "partial"}}]}]),
    ),
    Vendor(
        "anthropic_server",
        AnthropicProvider,
        spec("anthropic", "claude-haiku-4-5"),
        anthropic_error,
        anthropic_stream,
        anthropic_stream("partial", stop_event=False),
    ),
    Vendor(
        "google_server",
        GoogleProvider,
        spec("google", "gemini-2.5-flash"),
        lambda status, message, **kw: google_error(status, message, **kw),
        google_stream,
        google_stream("partial", finish_reason=None),
    ),
]
IDS = [vendor.fixture.removesuffix("_server") for vendor in VENDORS]


def adapter(
    vendor: Vendor, server: WireServer, http_client: httpx.AsyncClient, timeout: float = 5.0
) -> Any:
    return vendor.make(
        client=http_client,
        api_key=KEY,
        base_url=server.base_url,
        models=[vendor.model],
        timeouts=Timeouts(connect=timeout, first_token=timeout, idle=timeout, request=timeout),
    )


def where(vendor: Vendor, server: WireServer) -> str:
    """How an error names the call: provider, model, host and port."""
    return f"{vendor.model.provider} {vendor.model.name} at {server.url.removeprefix('http://')}"


async def fail(call: Any) -> ProviderError:
    with pytest.raises(ProviderError) as caught:
        await call
    return caught.value


async def fail_stream(stream: Any) -> ProviderError:
    with pytest.raises(ProviderError) as caught:
        await collect(stream)
    return caught.value


@pytest.fixture(params=VENDORS, ids=IDS)
def vendor_and_server(request: pytest.FixtureRequest) -> tuple[Vendor, WireServer]:
    vendor: Vendor = request.param
    return vendor, request.getfixturevalue(vendor.fixture)


async def test_429_is_retryable_with_retry_after(
    http_client: httpx.AsyncClient, vendor_and_server
) -> None:
    vendor, server = vendor_and_server
    server.enqueue(
        vendor.error(429, "Rate limit reached, slow down", retry_after=7),
        vendor.error(429, "again", retry_after="1.5"),
    )
    provider = adapter(vendor, server, http_client)
    error = await fail(provider.complete(vendor.model, ask()))
    assert (error.status_code, error.retryable, error.retry_after_seconds) == (429, True, 7.0)
    assert str(error) == f"{where(vendor, server)}: HTTP 429: Rate limit reached, slow down"
    assert error.provider == vendor.model.provider
    # The same on a stream request.
    error = await fail_stream(provider.stream(vendor.model, ask()))
    assert (error.status_code, error.retryable, error.retry_after_seconds) == (429, True, 1.5)


@pytest.mark.parametrize("status", [500, 503, 529])
async def test_server_errors_are_retryable(
    http_client: httpx.AsyncClient, vendor_and_server, status: int
) -> None:
    vendor, server = vendor_and_server
    server.enqueue(vendor.error(status, "Internal trouble"))
    error = await fail(adapter(vendor, server, http_client).complete(vendor.model, ask()))
    assert (error.status_code, error.retryable, error.retry_after_seconds) == (status, True, None)


async def test_client_errors_are_final_and_carry_the_vendor_message(
    http_client: httpx.AsyncClient, vendor_and_server
) -> None:
    vendor, server = vendor_and_server
    server.enqueue(
        vendor.error(400, "Invalid 'messages[0].content': too long"),
        vendor.error(401, f"Incorrect API key provided: {KEY}"),
    )
    provider = adapter(vendor, server, http_client)
    error = await fail(provider.complete(vendor.model, ask()))
    assert (error.status_code, error.retryable) == (400, False)
    assert "Invalid 'messages[0].content': too long" in str(error)
    error = await fail(provider.complete(vendor.model, ask()))
    assert (error.status_code, error.retryable) == (401, False)
    assert KEY not in str(error) and "***" in str(error)


async def test_timeouts_name_their_phase(http_client: httpx.AsyncClient, vendor_and_server) -> None:
    vendor, server = vendor_and_server
    server.enqueue(
        vendor.stream("late").delayed(5),
        vendor.stream("late").delayed(5),
        vendor.stream("a", "b", "c").stalled(5),
    )
    provider = adapter(vendor, server, http_client, timeout=0.2)
    call = where(vendor, server)
    # No reply in time: the server may still be reading the prompt, so no retry.
    error = await fail(provider.complete(vendor.model, ask()))
    assert str(error) == (
        f"{call}: reply timeout: no complete reply within 0.2 s (AGENTUR_REQUEST_TIMEOUT_SECONDS)"
    )
    assert (error.kind, error.retryable, error.status_code) == (
        ErrorKind.reply_timeout,
        False,
        None,
    )
    error = await fail_stream(provider.stream(vendor.model, ask()))
    assert str(error) == (
        f"{call}: time-to-first-token timeout: no reply within 0.2 s "
        "(AGENTUR_FIRST_TOKEN_TIMEOUT_SECONDS)"
    )
    assert not error.retryable
    # A stream that goes silent after it began: retryable (the prompt was read).
    error = await fail_stream(provider.stream(vendor.model, ask()))
    assert str(error) == (
        f"{call}: idle timeout: the stream was silent for 0.2 s "
        "(AGENTUR_STREAM_IDLE_TIMEOUT_SECONDS)"
    )
    assert error.retryable


async def test_broken_streams_are_retryable(
    http_client: httpx.AsyncClient, vendor_and_server
) -> None:
    vendor, server = vendor_and_server
    server.enqueue(vendor.stream("Hel", "lo", " world").broken_after(2), vendor.unfinished_stream)
    provider = adapter(vendor, server, http_client)
    cut = await fail_stream(provider.stream(vendor.model, ask()))
    assert cut.retryable and cut.kind in (ErrorKind.connection_broken, ErrorKind.stream_broken)
    unfinished = await fail_stream(provider.stream(vendor.model, ask()))
    assert unfinished.retryable and ": stream broken: ended " in str(unfinished)


async def test_connection_refused_is_retryable(
    http_client: httpx.AsyncClient,
) -> None:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    model = spec("openai", "gpt-4.1")
    provider = OpenAIProvider(
        client=http_client, api_key=KEY, base_url=f"http://127.0.0.1:{port}/v1", models=[model]
    )
    error = await fail(provider.complete(model, ask()))
    assert error.retryable and error.kind is ErrorKind.connection_refused
    assert str(error).startswith(f"openai gpt-4.1 at 127.0.0.1:{port}: connection refused: ")


async def test_retry_after_forms(
    http_client: httpx.AsyncClient, openai_server: WireServer, google_server: WireServer
) -> None:
    in_a_minute = format_datetime(datetime.now(UTC) + timedelta(seconds=60), usegmt=True)
    openai_server.enqueue(
        openai_error(429, "x", retry_after=in_a_minute),
        Reply.json({"error": {"message": "x"}}, status=429, headers={"retry-after-ms": "250"}),
        openai_error(503, "x", retry_after="soon"),
    )
    model = spec("openai", "gpt-4.1")
    openai = OpenAIProvider(
        client=http_client, api_key=KEY, base_url=openai_server.base_url, models=[model]
    )
    dated = await fail(openai.complete(model, ask()))
    assert dated.retry_after_seconds is not None and 0 < dated.retry_after_seconds <= 60
    assert (await fail(openai.complete(model, ask()))).retry_after_seconds == 0.25
    assert (await fail(openai.complete(model, ask()))).retry_after_seconds is None

    # Gemini puts the wait into a RetryInfo detail of the body.
    google_server.enqueue(
        google_error(429, "quota", status_name="RESOURCE_EXHAUSTED", retry_delay="12s")
    )
    gemini = spec("google", "gemini-2.5-flash")
    google = GoogleProvider(
        client=http_client, api_key=KEY, base_url=google_server.base_url, models=[gemini]
    )
    assert (await fail(google.complete(gemini, ask()))).retry_after_seconds == 12.0


@pytest.mark.parametrize("vendor", VENDORS, ids=IDS)
def test_adapters_implement_the_provider_protocol(vendor: Vendor) -> None:
    provider = vendor.make(api_key=KEY, base_url="http://127.0.0.1:9", models=[vendor.model])
    assert isinstance(provider, ModelProvider)
    assert provider.name == vendor.model.provider and provider.models() == [vendor.model]


def test_parse_retry_after() -> None:
    now = datetime(2025, 1, 1, 12, 0, 0, tzinfo=UTC)
    assert parse_retry_after("120", now=now) == 120.0
    assert parse_retry_after("Wed, 01 Jan 2025 12:00:30 GMT", now=now) == 30.0
    assert parse_retry_after("Wed, 01 Jan 2025 11:00:00 GMT", now=now) == 0.0
    assert parse_retry_after("-5", now=now) == 0.0
    assert parse_retry_after("", now=now) is None
    assert parse_retry_after("tomorrow", now=now) is None


async def test_error_events_inside_streams(
    http_client: httpx.AsyncClient, anthropic_server: WireServer, openai_server: WireServer
) -> None:
    anthropic_server.enqueue(
        anthropic_stream_error("Overloaded"),
        anthropic_stream_error("bad input", error_type="invalid_request_error"),
    )
    claude = spec("anthropic", "claude-haiku-4-5")
    anthropic = AnthropicProvider(
        client=http_client, api_key=KEY, base_url=anthropic_server.base_url, models=[claude]
    )
    overloaded = await fail_stream(anthropic.stream(claude, ask()))
    assert overloaded.retryable and "Overloaded" in str(overloaded)
    invalid = await fail_stream(anthropic.stream(claude, ask()))
    assert not invalid.retryable and "bad input" in str(invalid)

    openai_server.enqueue(
        Reply.sse([{"error": {"message": "The server had an error", "type": "server_error"}}])
    )
    model = spec("openai", "gpt-4.1")
    openai = OpenAIProvider(
        client=http_client, api_key=KEY, base_url=openai_server.base_url, models=[model]
    )
    error = await fail_stream(openai.stream(model, ask()))
    assert error.retryable and "The server had an error" in str(error)
