"""G2: which model the selector picks, and the specific error when none fits."""

from __future__ import annotations

from dataclasses import replace

import pytest

from agentur.ai.gateway_errors import (
    ContextLengthExceededError,
    ModelNotAllowedError,
    NoModelError,
)
from agentur.ai.mandate_ai_settings import MandateAiConfig
from agentur.ai.messages import AiRequest, CallOptions, ImagePart, Message, ToolDefinition
from agentur.ai.model_spec import Capability
from agentur.ai.operation_types import OperationType
from agentur.ai.providers.scripted import ScriptedProvider
from agentur.ai.service import AiService
from agentur.ai.settings import AiSettings, NeutralizationPolicy, Ranking
from agentur.context import RequestContext, Role
from tests.ai.gateway.conftest import ask, spec

CONTEXT = RequestContext("u", "m", Role.member)
TOOL = ToolDefinition("t", "a tool", {"type": "object"})
PNG = ImagePart(b"\x89PNG", "image/png")


def _service(*specs, **settings) -> AiService:
    providers = {}
    for s in specs:
        providers.setdefault(s.provider, []).append(s)
    return AiService(
        [ScriptedProvider(name=name, model_specs=models) for name, models in providers.items()],
        settings=AiSettings(**settings),
    )


def _config(**kwargs) -> MandateAiConfig:
    return MandateAiConfig(NeutralizationPolicy.off, **kwargs)


async def test_tools_and_context_window_filter_and_the_error_names_what_is_missing():
    ai = _service(
        spec(
            "small", caps=frozenset({Capability.streaming, Capability.tools}), context_window=8_000
        ),
        spec("plain", caps=frozenset({Capability.streaming}), context_window=200_000),
    )
    picked = await ai.candidates(
        AiRequest(OperationType.agent, (Message.user("hi"),), (TOOL,)), CONTEXT
    )
    assert [s.id for s in picked] == ["small:m"]
    big = AiRequest(OperationType.agent, (Message.user("x" * 160_000),), (TOOL,))
    # The one model with tools is too small: the caller's prompt is the problem (a 4xx).
    with pytest.raises(ContextLengthExceededError) as too_long:
        await ai.call(big, CONTEXT)
    assert too_long.value.status_code == 400
    assert too_long.value.prompt_tokens > 40_000 and too_long.value.context_window == 8_000
    assert "context window of small:m (8000 tokens" in too_long.value.detail
    with pytest.raises(ContextLengthExceededError, match="of small:m \\(8000 tokens\\)"):
        await ai.call(replace(big, options=CallOptions(model="small:m")), CONTEXT)
    # No model offers what the request needs at all: that stays "no model" (a 503).
    images = AiRequest(OperationType.agent, (Message.user("hi", (PNG,)),), (TOOL,))
    with pytest.raises(NoModelError) as raised:
        await ai.candidates(images, CONTEXT)
    assert "no configured model supports tools and vision" in raised.value.detail
    assert "AGENTUR_OPENAI_COMPATIBLE_BASE_URL" in raised.value.detail


async def test_embedding_operation_needs_an_embedding_model():
    ai = _service(spec("chat"))
    with pytest.raises(NoModelError, match="embeddings"):
        await ai.embed(["text"], "query", CONTEXT)


async def test_no_provider_configured_is_a_specific_error():
    ai = AiService([], settings=AiSettings())
    assert ai.models() == []
    with pytest.raises(NoModelError, match="no model is configured.*configure AGENTUR_"):
        await ai.call(ask("hi"), CONTEXT)
    with pytest.raises(NoModelError, match="embeddings"):
        await ai.embed(["hi"], "index", CONTEXT)


async def test_ranking_and_default_model():
    cheap = spec("cheap", price=(0.1, 0.2))
    dear = spec("dear", price=(5.0, 10.0))
    by_cost = _service(cheap, dear, model_ranking=Ranking.cost)
    assert [s.provider for s in await by_cost.candidates(ask("hi"), CONTEXT)] == ["cheap", "dear"]
    preferred = _service(cheap, dear, model_ranking=Ranking.cost, default_model="dear:m")
    assert [s.provider for s in await preferred.candidates(ask("hi"), CONTEXT)][0] == "dear"


async def test_mandate_restrictions_and_unpriced_models():
    priced = spec("priced")
    unpriced = spec("local", price=(None, None))
    ai = _service(priced, unpriced)
    ai.store.configs["m"] = _config(allowed_providers=frozenset({"local"}))
    with pytest.raises(ModelNotAllowedError, match="no known price"):
        await ai.call(ask("hi"), CONTEXT)
    ai.store.configs["m"] = _config(allowed_providers=frozenset({"local"}), allow_unpriced=True)
    assert (await ai.call(ask("hi"), CONTEXT)).model == "local:m"
    ai.store.configs["m"] = _config(allowed_models=frozenset({"nope:x"}))
    with pytest.raises(ModelNotAllowedError, match="exclude all"):
        await ai.call(ask("hi"), CONTEXT)


async def test_override_is_honoured_but_restrictions_still_apply():
    ai = _service(spec("a", price=(0.1, 0.1)), spec("b", price=(9.0, 9.0)))
    request = ask("hi", options=CallOptions(model="b:m"))
    assert (await ai.call(request, CONTEXT)).model == "b:m"
    ai.store.configs["m"] = _config(allowed_providers=frozenset({"a"}))
    with pytest.raises(ModelNotAllowedError, match="b:m"):
        await ai.call(request, CONTEXT)
    with pytest.raises(NoModelError, match="not configured"):
        await ai.call(ask("hi", options=CallOptions(model="zz:top")), CONTEXT)


async def test_plan_prefers_reasoning_and_data_extract_structured_output():
    chat = frozenset({Capability.streaming, Capability.tools})
    cheap = spec("cheap", price=(0.1, 0.2), caps=chat)
    thinker = spec("thinker", price=(5.0, 10.0), caps=chat | {Capability.reasoning})
    shaper = spec("shaper", price=(2.0, 4.0), caps=chat | {Capability.structured_output})
    ai = _service(cheap, thinker, shaper, model_ranking=Ranking.cost, max_fallbacks=5)

    async def order(operation: OperationType) -> list[str]:
        request = AiRequest(operation, (Message.user("hi"),))
        return [s.provider for s in await ai.candidates(request, CONTEXT)]

    # Cost ranking for plain chat purposes; the preference lifts its models, others stay.
    for plain in (OperationType.agent, OperationType.data_analyse, OperationType.data_generate):
        assert await order(plain) == ["cheap", "shaper", "thinker"]
    assert await order(OperationType.plan) == ["thinker", "cheap", "shaper"]
    assert await order(OperationType.data_extract) == ["shaper", "cheap", "thinker"]
