"""Image parts on each provider's wire format, against real local servers speaking it.

The shapes asserted are the ones each vendor documents for inline (base64) images."""

from __future__ import annotations

import base64
import io
from dataclasses import replace

import httpx
from PIL import Image

from agentur.ai.messages import AiRequest, ImagePart, Message
from agentur.ai.operation_types import OperationType
from agentur.ai.providers.anthropic import AnthropicProvider
from agentur.ai.providers.google import GoogleProvider
from agentur.ai.providers.mistral import MistralProvider
from agentur.ai.providers.openai import OpenAIProvider
from agentur.ai.providers.openai_compatible import OpenAICompatibleProvider
from tests.ai.providers.helpers import spec
from tests.ai.wire_servers import WireServer, anthropic_text, google_text, openai_text


def png(width: int = 4, height: int = 3, colour: str = "red") -> bytes:
    buffer = io.BytesIO()
    Image.new("RGB", (width, height), colour).save(buffer, "PNG")
    return buffer.getvalue()


PNG = png()
B64 = base64.b64encode(PNG).decode()


def image_request(text: str = "What colour is this?") -> AiRequest:
    return AiRequest(
        operation=OperationType.image_analyse,
        messages=(
            Message.system("Be brief."),
            Message.user(text, images=(ImagePart(PNG, "image/png"),)),
        ),
    )


async def test_openai_sends_text_and_image_url_parts(
    http_client: httpx.AsyncClient, openai_server: WireServer
) -> None:
    model = spec("openai", "gpt-4.1-mini")
    adapter = OpenAIProvider(
        client=http_client, api_key="sk", base_url=openai_server.base_url, models=[model]
    )
    openai_server.enqueue(openai_text("Red."))
    response = await adapter.complete(model, image_request())
    assert response.text == "Red."
    messages = openai_server.last.json["messages"]
    assert messages[0] == {"role": "system", "content": "Be brief."}
    assert messages[1] == {
        "role": "user",
        "content": [
            {"type": "text", "text": "What colour is this?"},
            {"type": "image_url", "image_url": {"url": f"data:image/png;base64,{B64}"}},
        ],
    }


async def test_openai_compatible_sends_round_context_as_its_own_turn_or_joins_on_request(
    http_client: httpx.AsyncClient, openai_server: WireServer
) -> None:
    image_turn = {
        "role": "user",
        "content": [
            {"type": "text", "text": "What colour is this?"},
            {"type": "image_url", "image_url": {"url": f"data:image/png;base64,{B64}"}},
        ],
    }
    for join in (False, True):
        model = replace(spec("openai_compatible", "llava"), join_round_context=join)
        adapter = OpenAICompatibleProvider(
            client=http_client, base_url=openai_server.base_url, models=[model]
        )
        openai_server.enqueue(openai_text("Red."))
        request = image_request()
        request = AiRequest(
            request.operation, (*request.messages, Message.round_context("Today is Monday."))
        )
        await adapter.complete(model, request)
        messages = openai_server.last.json["messages"]
        if not join:  # the context never reads as the user's words
            assert messages[1:] == [image_turn, {"role": "user", "content": "Today is Monday."}]
        else:  # for templates that refuse two user turns: one turn, the image kept in it
            joined = [*image_turn["content"], {"type": "text", "text": "Today is Monday."}]
            assert messages[1:] == [{"role": "user", "content": joined}]


async def test_mistral_sends_the_data_url_as_a_string(
    http_client: httpx.AsyncClient, mistral_server: WireServer
) -> None:
    model = spec("mistral", "mistral-small-latest")
    adapter = MistralProvider(
        client=http_client, api_key="mk", base_url=mistral_server.base_url, models=[model]
    )
    mistral_server.enqueue(openai_text("Red."))
    await adapter.complete(model, image_request())
    assert mistral_server.last.json["messages"][1]["content"] == [
        {"type": "text", "text": "What colour is this?"},
        {"type": "image_url", "image_url": f"data:image/png;base64,{B64}"},
    ]


async def test_anthropic_sends_a_base64_image_block_before_the_text(
    http_client: httpx.AsyncClient, anthropic_server: WireServer
) -> None:
    model = spec("anthropic", "claude-haiku-4-5", max_output_tokens=1000)
    adapter = AnthropicProvider(
        client=http_client, api_key="k", base_url=anthropic_server.base_url, models=[model]
    )
    anthropic_server.enqueue(anthropic_text("Red."))
    await adapter.complete(model, image_request())
    body = anthropic_server.last.json
    assert body["messages"] == [
        {
            "role": "user",
            "content": [
                {
                    "type": "image",
                    "source": {"type": "base64", "media_type": "image/png", "data": B64},
                },
                {"type": "text", "text": "What colour is this?"},
            ],
        }
    ]


async def test_google_sends_inline_data(
    http_client: httpx.AsyncClient, google_server: WireServer
) -> None:
    model = spec("google", "gemini-2.5-flash")
    adapter = GoogleProvider(
        client=http_client, api_key="g", base_url=google_server.base_url, models=[model]
    )
    google_server.enqueue(google_text("Red."))
    await adapter.complete(model, image_request())
    body = google_server.last.json
    assert body["contents"] == [
        {
            "role": "user",
            "parts": [
                {"text": "What colour is this?"},
                {"inlineData": {"mimeType": "image/png", "data": B64}},
            ],
        }
    ]
    assert body["systemInstruction"] == {"parts": [{"text": "Be brief."}]}


async def test_openai_compatible_keeps_a_workflow_on_one_server_slot(
    http_client: httpx.AsyncClient, openai_server: WireServer
) -> None:
    """llama-server: `cache_prompt` always; with `server_slots` a workflow's calls name one
    stable slot, so its prefix stays cached; without it no slot is named."""
    slots = []
    for server_slots, workflow in ((4, "wf-a"), (4, "wf-a"), (4, "wf-b"), (0, "wf-a")):
        model = replace(spec("openai_compatible", "qwen"), server_slots=server_slots)
        adapter = OpenAICompatibleProvider(
            client=http_client, base_url=openai_server.base_url, models=[model]
        )
        openai_server.enqueue(openai_text("ok"))
        request = replace(image_request(), workflow_id=workflow)
        await adapter.complete(model, request)
        body = openai_server.last.json
        assert body["cache_prompt"] is True
        slots.append(body.get("id_slot"))
    assert slots[0] == slots[1] and 0 <= slots[0] < 4 and slots[3] is None
