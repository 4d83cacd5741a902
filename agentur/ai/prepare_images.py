"""Image parts checked and scaled to what every provider accepts, before any is called.

Runs on a worker thread (Pillow decoding is CPU work). The limits are settings: a hard cap on
what a caller may hand in, and the edge/byte size the image is scaled to — the smallest of
the providers' limits (Anthropic: 5 MB per image, ~1568 px long edge recommended), so a
fallback to another provider never meets an image it refuses."""

from __future__ import annotations

import asyncio
import io
from dataclasses import replace

from PIL import Image, UnidentifiedImageError

from agentur.ai.gateway_errors import ImageRejectedError
from agentur.ai.messages import AiRequest, ImagePart
from agentur.ai.settings import AiSettings

# The formats OpenAI, Anthropic, Gemini and Mistral all take as inline images.
SENDABLE = {"PNG": "image/png", "JPEG": "image/jpeg", "GIF": "image/gif", "WEBP": "image/webp"}
JPEG_QUALITY = 85


def _encode(image: Image.Image, fmt: str) -> bytes:
    buffer = io.BytesIO()
    if fmt == "JPEG":
        image.convert("RGB").save(buffer, "JPEG", quality=JPEG_QUALITY, optimize=True)
    else:
        image.save(buffer, fmt, optimize=True)
    return buffer.getvalue()


def fit_image(part: ImagePart, settings: AiSettings) -> ImagePart:
    """`part` unchanged when it fits; else scaled (and re-encoded) until it does."""
    if len(part.data) > settings.image_max_input_bytes:
        raise ImageRejectedError(
            f"an image of {len(part.data)} bytes exceeds AGENTUR_IMAGE_MAX_INPUT_BYTES "
            f"({settings.image_max_input_bytes})"
        )
    try:
        image = Image.open(io.BytesIO(part.data))
        image.load()
    except (UnidentifiedImageError, OSError) as error:
        raise ImageRejectedError(
            f"an image part ({part.mime_type}) is not a readable image"
        ) from error
    fmt = image.format or ""
    fits = (
        fmt in SENDABLE
        and max(image.size) <= settings.image_max_edge_px
        and len(part.data) <= settings.image_max_bytes
    )
    if fits:
        return ImagePart(part.data, SENDABLE[fmt])  # the real type, whatever the caller said
    # Anything else (TIFF, BMP, oversized) goes as PNG, or JPEG when PNG stays too large.
    target = fmt if fmt in ("PNG", "JPEG", "WEBP") else "PNG"
    image.thumbnail((settings.image_max_edge_px, settings.image_max_edge_px))
    data = _encode(image, target)
    while len(data) > settings.image_max_bytes:
        if target != "JPEG":
            target = "JPEG"
        else:
            width, height = image.size
            if max(width, height) <= 64:
                break
            image = image.resize((max(1, width * 3 // 4), max(1, height * 3 // 4)))
        data = _encode(image, target)
    return ImagePart(data, SENDABLE[target])


def _fit_all(request: AiRequest, settings: AiSettings) -> AiRequest:
    messages = tuple(
        replace(m, images=tuple(fit_image(i, settings) for i in m.images)) if m.images else m
        for m in request.messages
    )
    return replace(request, messages=messages)


async def prepare_images(request: AiRequest, settings: AiSettings) -> AiRequest:
    if not any(m.images for m in request.messages):
        return request
    return await asyncio.to_thread(_fit_all, request, settings)
