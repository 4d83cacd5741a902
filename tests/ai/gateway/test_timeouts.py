"""Timeouts through the whole gateway against a local OpenAI-compatible wire server:
each phase has its own limit and says which one fired, and a server that got the prompt but
sent nothing in time never gets it again (no retry, no other model on the same server). And a
refused connection, named as such in the caller's error."""

from __future__ import annotations

import socket
from collections.abc import AsyncIterator
from typing import Any

import pytest

from agentur.ai.gateway_errors import ProviderUnavailableError
from agentur.ai.messages import StreamDone, TextDelta
from agentur.ai.provider_factory import build_providers
from agentur.ai.providers.openai_compatible_settings import OpenAICompatibleServerSettings
from agentur.ai.service import AiService, StreamError
from agentur.ai.settings import AiSettings
from agentur.context import RequestContext, Role
from tests.ai.gateway.conftest import Sleeps, ask
from tests.ai.wire_servers import Reply, WireServer, openai_stream, openai_text

CONTEXT = RequestContext("u", "m", Role.member)
SERVER_PREFIX = "openai_compatible_"  # the server's own settings; the rest are the gateway's


@pytest.fixture
async def local_ai(openai_server: WireServer) -> AsyncIterator[Any]:
    """`local_ai(**settings)`: a gateway whose only provider is the wire server, serving two
    models (so a fallback to the same server would be visible)."""
    made: list[AiService] = []

    def build(**overrides: Any) -> AiService:
        server_overrides = {k: v for k, v in overrides.items() if k.startswith(SERVER_PREFIX)}
        server = OpenAICompatibleServerSettings(
            openai_compatible_base_url=openai_server.base_url,
            openai_compatible_models="small,large",
            **server_overrides,
        )
        settings = AiSettings(
            default_model="openai_compatible:small",
            **{k: v for k, v in overrides.items() if k not in server_overrides},
        )
        providers = build_providers(settings, server=server)
        made.append(AiService(providers, settings=settings, sleep=Sleeps()))
        return made[-1]

    yield build
    for ai in made:
        await ai.aclose()


def _chat_posts(server: WireServer) -> int:
    return sum(1 for r in server.received if r.path.endswith("/chat/completions"))


async def test_first_token_timeout_names_the_limit_and_never_restarts_the_prompt(
    local_ai, openai_server: WireServer
) -> None:
    # 1.5 s, not less: the wire server must have read the request by then on a busy machine
    openai_server.enqueue(openai_stream("too", " late").delayed(5))
    ai = local_ai(openai_compatible_first_token_timeout_seconds=1.5, max_retries=2)
    with pytest.raises(ProviderUnavailableError) as raised:
        async for _ in ai.stream(ask("a long prompt"), CONTEXT):
            pass
    host = openai_server.url.removeprefix("http://")
    assert raised.value.detail == (
        f"every model attempt failed: openai_compatible small at {host}: "
        "time-to-first-token timeout: no reply within 1.5 s "
        "(AGENTUR_OPENAI_COMPATIBLE_FIRST_TOKEN_TIMEOUT_SECONDS)"
    )
    # One request: no retry, and the second model on the same server was not tried either.
    assert _chat_posts(openai_server) == 1


async def test_non_streamed_reply_timeout_is_not_retried(
    local_ai, openai_server: WireServer
) -> None:
    openai_server.enqueue(openai_text("too late").delayed(5))
    ai = local_ai(openai_compatible_request_timeout_seconds=1, max_retries=2)
    with pytest.raises(ProviderUnavailableError) as raised:
        await ai.call(ask("a long prompt"), CONTEXT)
    assert "small at" in raised.value.detail
    assert "reply timeout: no complete reply within 1 s" in raised.value.detail
    assert _chat_posts(openai_server) == 1


async def test_idle_timeout_before_any_text_is_retried(local_ai, openai_server: WireServer) -> None:
    # The first event (the role) arrives, then the stream goes silent: the prompt was read,
    # nothing reached the caller, so one retry is safe.
    openai_server.enqueue(openai_stream("never").stalled(3), openai_stream("Hello"))
    ai = local_ai(openai_compatible_stream_idle_timeout_seconds=0.3, max_retries=1)
    events = [event async for event in ai.stream(ask("hi"), CONTEXT)]
    assert isinstance(events[-1], StreamDone) and events[-1].response.text == "Hello"
    assert _chat_posts(openai_server) == 2


async def test_idle_timeout_after_text_ends_the_stream_with_an_error(
    local_ai, openai_server: WireServer
) -> None:
    first_has_text = [{"choices": [{"index": 0, "delta": {"content": "Half"}}]}] * 2
    openai_server.enqueue(Reply.sse(first_has_text).stalled(3))
    ai = local_ai(openai_compatible_stream_idle_timeout_seconds=0.3, max_retries=2)
    events = [event async for event in ai.stream(ask("hi"), CONTEXT)]
    assert events[0] == TextDelta("Half")
    error = events[-1]
    assert isinstance(error, StreamError)
    assert "idle timeout: the stream was silent for 0.3 s" in error.message
    assert _chat_posts(openai_server) == 1  # the caller saw text: never restarted


async def test_connection_refused_names_provider_model_host_and_kind() -> None:
    with socket.socket() as probe:  # a port nobody listens on
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    server = OpenAICompatibleServerSettings(
        openai_compatible_base_url=f"http://127.0.0.1:{port}/v1",
        openai_compatible_models="small",
    )
    settings = AiSettings(max_retries=1)
    sleeps = Sleeps()
    ai = AiService(build_providers(settings, server=server), settings=settings, sleep=sleeps)
    try:
        with pytest.raises(ProviderUnavailableError) as raised:
            await ai.call(ask("hi"), CONTEXT)
    finally:
        await ai.aclose()
    assert raised.value.detail == (
        f"every model attempt failed: openai_compatible small at 127.0.0.1:{port}: "
        "connection refused: All connection attempts failed"
    )
    assert len(sleeps) == 1  # nothing reached a server: retried
