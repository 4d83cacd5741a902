"""OpenAI images wire format (`image_generate`) against a real local server, and the
selector routing image generation to image models only."""

from __future__ import annotations

import httpx
import pytest

from agentur.ai.gateway_errors import NoModelError
from agentur.ai.mandate_ai_settings import MandateAiConfig
from agentur.ai.messages import AiRequest, CallOptions, ImageOptions, Message
from agentur.ai.model_registry import ModelRegistry
from agentur.ai.model_spec import Capability, ModelSpec
from agentur.ai.operation_types import OperationType
from agentur.ai.providers.base import ProviderError
from agentur.ai.providers.openai import OpenAIProvider
from agentur.ai.providers.scripted import ScriptedProvider
from agentur.ai.select_model import select_models
from agentur.ai.settings import AiSettings
from tests.ai.wire_servers import Reply, WireServer, openai_image

PRICED = {"input_price_usd_per_mtok": 5.0, "output_price_usd_per_mtok": 40.0}
IMAGE_MODEL = ModelSpec("openai", "gpt-image-1", frozenset({Capability.image_generation}), **PRICED)
PICTURE = b"\x89PNG\r\n\x1a\n-generated"


def draw(size: str = "1536x1024", quality: str = "high") -> AiRequest:
    return AiRequest(
        OperationType.image_generate,
        (Message.user("A lighthouse at dawn"),),
        options=CallOptions(image=ImageOptions(size=size, quality=quality)),
    )


async def test_generation_posts_the_documented_body_and_decodes_the_image(
    http_client: httpx.AsyncClient, openai_server: WireServer
) -> None:
    adapter = OpenAIProvider(
        client=http_client, api_key="sk", base_url=openai_server.base_url, models=[IMAGE_MODEL]
    )
    openai_server.enqueue(openai_image(PICTURE, input_tokens=9, output_tokens=6_240))
    response = await adapter.generate_image(IMAGE_MODEL, draw())
    received = openai_server.last
    assert received.path == "/v1/images/generations"
    assert received.headers["authorization"] == "Bearer sk"
    assert received.json == {
        "model": "gpt-image-1",
        "prompt": "A lighthouse at dawn",
        "n": 1,
        "size": "1536x1024",
        "quality": "high",
    }
    assert [(i.data, i.mime_type) for i in response.images] == [(PICTURE, "image/png")]
    assert (response.usage.input_tokens, response.usage.output_tokens) == (9, 6_240)


async def test_dall_e_is_asked_for_base64_and_a_reply_without_image_fails(
    http_client: httpx.AsyncClient, openai_server: WireServer
) -> None:
    dall_e = ModelSpec("openai", "dall-e-3", frozenset({Capability.image_generation}), **PRICED)
    adapter = OpenAIProvider(
        client=http_client, api_key="sk", base_url=openai_server.base_url, models=[dall_e]
    )
    url_only = Reply.json({"created": 1, "data": [{"url": "https://example.test/x.png"}]})
    openai_server.enqueue(url_only)
    with pytest.raises(ProviderError, match="without a base64 image"):
        await adapter.generate_image(dall_e, draw(size="1024x1024", quality="auto"))
    assert openai_server.last.json == {
        "model": "dall-e-3",
        "prompt": "A lighthouse at dawn",
        "n": 1,
        "size": "1024x1024",
        "response_format": "b64_json",
    }


def test_image_generation_is_routed_to_image_models_only() -> None:
    chat = ModelSpec(
        "openai",
        "gpt-4.1-mini",
        frozenset({Capability.tools, Capability.streaming, Capability.vision}),
        **PRICED,
    )
    config = MandateAiConfig.defaults(AiSettings())
    both = ModelRegistry([ScriptedProvider(name="openai", model_specs=[chat, IMAGE_MODEL])])
    chosen = select_models(both, draw(), config, prompt_tokens=10)
    assert [s.id for s in chosen] == ["openai:gpt-image-1"]
    chat_only = ModelRegistry([ScriptedProvider(name="openai", model_specs=[chat])])
    with pytest.raises(NoModelError, match="image_generation"):
        select_models(chat_only, draw(), config, prompt_tokens=10)
