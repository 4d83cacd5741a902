"""Images through the gateway: routed to vision models only, scaled to the limits,
never sent under neutralization policy `block`."""

from __future__ import annotations

import io

import pytest
from PIL import Image

from agentur.ai.gateway_errors import ImageRejectedError, ImagesBlockedError, NoModelError
from agentur.ai.messages import AiRequest, ImagePart, Message
from agentur.ai.model_spec import Capability
from agentur.ai.operation_types import OperationType
from agentur.ai.providers.scripted import ScriptedProvider, ScriptedTurn
from tests.ai.gateway.conftest import CHAT_CAPS, spec


def encoded(width: int, height: int, fmt: str = "PNG") -> bytes:
    buffer = io.BytesIO()
    Image.effect_noise((width, height), 64).convert("RGB").save(buffer, fmt)
    return buffer.getvalue()


def look(data: bytes, mime: str = "image/png", operation=OperationType.image_analyse):
    return AiRequest(
        operation=operation,
        messages=(Message.user("What is on it?", images=(ImagePart(data, mime),)),),
    )


def provider(name: str, *, vision: bool) -> ScriptedProvider:
    caps = CHAT_CAPS if vision else CHAT_CAPS - {Capability.vision}
    return ScriptedProvider(
        name=name,
        model_specs=[spec(name, caps=caps)],
        fallback=ScriptedTurn(text=f"seen by {name}"),
    )


def sent_image(scripted: ScriptedProvider) -> Image.Image:
    part = scripted.received[-1].messages[-1].images[0]
    image = Image.open(io.BytesIO(part.data))
    assert Image.MIME[image.format] == part.mime_type  # the declared type is the real one
    return image


async def test_images_go_only_to_vision_models(gateway, tenants):
    member = await tenants.member()
    blind, seeing = provider("blind", vision=False), provider("seeing", vision=True)
    ai = gateway(blind, seeing, default_model="blind:m")  # the default cannot see: skipped
    # Any operation that carries an image needs vision, not only image_analyse.
    for operation in (OperationType.image_analyse, OperationType.agent):
        response = await ai.call(look(encoded(8, 8), operation=operation), member.context)
        assert response.text == "seen by seeing"
    assert blind.received == []

    with pytest.raises(NoModelError, match="vision"):
        await gateway(provider("blind", vision=False)).call(look(encoded(8, 8)), member.context)


async def test_policy_block_never_sends_an_image(gateway, tenants, configure_mandate):
    member = await tenants.member()
    await configure_mandate(member.mandate_id, neutralization_policy="block")
    seeing = provider("seeing", vision=True)
    with pytest.raises(ImagesBlockedError, match="1 image.*'block'"):
        await gateway(seeing).call(look(encoded(8, 8)), member.context)
    assert seeing.received == []
    # Text alone still passes the gate under the same policy.
    text_only = AiRequest(OperationType.agent, (Message.user("What is 2+2?"),))
    assert (await gateway(seeing).call(text_only, member.context)).text == "seen by seeing"


async def test_policy_neutralize_sends_the_image_unchanged(gateway, tenants, configure_mandate):
    member = await tenants.member()
    await configure_mandate(member.mandate_id, neutralization_policy="neutralize")
    seeing = provider("seeing", vision=True)
    data = encoded(16, 16)
    await gateway(seeing).call(look(data), member.context)
    assert seeing.received[-1].messages[-1].images[0].data == data


async def test_large_images_are_scaled_and_odd_formats_converted(gateway, tenants):
    member = await tenants.member()
    seeing = provider("seeing", vision=True)
    ai = gateway(seeing, image_max_edge_px=500, image_max_bytes=200_000)

    await ai.call(look(encoded(2000, 1000)), member.context)
    image = sent_image(seeing)
    assert image.size == (500, 250)
    assert len(seeing.received[-1].messages[-1].images[0].data) <= 200_000

    await ai.call(look(encoded(40, 30, "TIFF"), "image/tiff"), member.context)
    assert (sent_image(seeing).format, sent_image(seeing).size) == ("PNG", (40, 30))

    small = encoded(20, 10, "JPEG")
    await ai.call(look(small, "image/png"), member.context)  # the caller named it wrongly
    assert seeing.received[-1].messages[-1].images[0] == ImagePart(small, "image/jpeg")


async def test_unreadable_or_oversized_images_are_refused(gateway, tenants):
    member = await tenants.member()
    seeing = provider("seeing", vision=True)
    ai = gateway(seeing, image_max_input_bytes=50_000)
    with pytest.raises(ImageRejectedError, match="not a readable image"):
        await ai.call(look(b"%PDF-1.7 not an image"), member.context)
    with pytest.raises(ImageRejectedError, match="AGENTUR_IMAGE_MAX_INPUT_BYTES"):
        await ai.call(look(encoded(300, 300)), member.context)
    assert seeing.received == []
