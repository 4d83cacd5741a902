"""Every call carries an output limit, under the name each wire format uses: the
model's own (catalog or `AGENTUR_OPENAI_COMPATIBLE_MAX_OUTPUT_TOKENS`), lowered by the caller
(e.g. the agent's budget) and by what the context window leaves after the prompt."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from agentur.ai.messages import AiRequest, CallOptions, Message
from agentur.ai.operation_types import OperationType
from agentur.ai.provider_factory import build_providers
from agentur.ai.providers.anthropic import AnthropicProvider
from agentur.ai.providers.google import GoogleProvider
from agentur.ai.providers.openai import OpenAIProvider
from agentur.ai.providers.openai_compatible_settings import OpenAICompatibleServerSettings
from agentur.ai.service import AiService
from agentur.ai.settings import AiSettings
from agentur.context import RequestContext, Role
from tests.ai.gateway.conftest import Sleeps, spec
from tests.ai.wire_servers import (
    WireServer,
    anthropic_stream,
    anthropic_text,
    google_stream,
    google_text,
    openai_stream,
    openai_text,
)

CONTEXT = RequestContext("u", "m", Role.member)


def _request(max_output_tokens: int | None = None, text: str = "Hi") -> AiRequest:
    return AiRequest(
        operation=OperationType.agent,
        messages=(Message.user(text),),
        options=CallOptions(max_output_tokens=max_output_tokens),
    )


def _max_tokens(body: dict[str, Any]) -> int:
    return body["max_tokens"]


def _reasoning_limit(body: dict[str, Any]) -> int:
    assert "max_tokens" not in body
    return body["max_completion_tokens"]


def _google_limit(body: dict[str, Any]) -> int:
    return body["generationConfig"]["maxOutputTokens"]


CASES = [
    ("openai_server", OpenAIProvider, "openai", "gpt-4.1", openai_text, openai_stream, _max_tokens),
    (
        "openai_server",
        OpenAIProvider,
        "openai",
        "o4-mini",
        openai_text,
        openai_stream,
        _reasoning_limit,
    ),
    (
        "anthropic_server",
        AnthropicProvider,
        "anthropic",
        "claude",
        anthropic_text,
        anthropic_stream,
        _max_tokens,
    ),
    (
        "google_server",
        GoogleProvider,
        "google",
        "gemini",
        google_text,
        google_stream,
        _google_limit,
    ),
]


@pytest.mark.parametrize(
    ("fixture", "adapter", "provider", "model", "reply", "stream", "sent_limit"),
    CASES,
    ids=["openai", "openai-reasoning", "anthropic", "google"],
)
async def test_every_wire_format_gets_a_limit(
    request: pytest.FixtureRequest,
    fixture: str,
    adapter: type,
    provider: str,
    model: str,
    reply: Callable[..., Any],
    stream: Callable[..., Any],
    sent_limit: Callable[[dict[str, Any]], int],
) -> None:
    server: WireServer = request.getfixturevalue(fixture)
    model_spec = spec(provider, model, max_output_tokens=4_000, context_window=10_000)
    ai = AiService(
        [adapter(api_key="k", base_url=server.base_url, models=[model_spec])],
        settings=AiSettings(),
        sleep=Sleeps(),
    )
    server.enqueue(reply("a"), stream("b"), reply("c"), reply("d"))
    try:
        await _check_limits(ai, server, sent_limit)
    finally:
        await ai.aclose()


async def _check_limits(
    ai: AiService, server: WireServer, sent_limit: Callable[[dict[str, Any]], int]
) -> None:
    # Nothing asked: the model's own maximum.
    await ai.call(_request(), CONTEXT)
    assert sent_limit(server.last.json) == 4_000
    # The caller's lower limit (the agent's budget) wins, on streams too.
    async for _ in ai.stream(_request(max_output_tokens=300), CONTEXT):
        pass
    assert sent_limit(server.last.json) == 300
    # A higher wish is capped at the model's maximum.
    await ai.call(_request(max_output_tokens=5_000), CONTEXT)
    assert sent_limit(server.last.json) == 4_000
    # A long prompt leaves less room in the window: 8,004 estimated tokens of 10,000.
    await ai.call(_request(text="x" * 32_000), CONTEXT)
    assert sent_limit(server.last.json) == 10_000 - 8_004


async def test_openai_compatible_limit_comes_from_its_setting(openai_server: WireServer) -> None:
    server = OpenAICompatibleServerSettings(
        openai_compatible_base_url=openai_server.base_url,
        openai_compatible_models="qwen2.5",
        openai_compatible_max_output_tokens=1_234,
    )
    settings = AiSettings()
    ai = AiService(build_providers(settings, server=server), settings=settings, sleep=Sleeps())
    try:
        openai_server.enqueue(openai_text("ok"))
        await ai.call(_request(), CONTEXT)
    finally:
        await ai.aclose()
    assert openai_server.last.json["max_tokens"] == 1_234
