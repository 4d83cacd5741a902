"""The OpenAI images wire format for `image_generate`: JSON `POST /images/generations`, the
image back as `b64_json`. gpt-image-* models always answer base64 (and reject
`response_format`); DALL·E models are asked for it. Usage is reported in tokens (text in,
image tokens out) and billed like any call."""

from __future__ import annotations

import base64
import binascii
import time
from typing import Any

from agentur.ai.messages import AiRequest, AiResponse, ImagePart, Role, Usage
from agentur.ai.model_spec import ModelSpec
from agentur.ai.providers.base import ErrorKind, model_reply
from agentur.ai.providers.http_transport import HttpTransport
from agentur.ai.providers.scripted import estimate_tokens

MIME = {"png": "image/png", "jpeg": "image/jpeg", "webp": "image/webp"}


def _payload(model: ModelSpec, request: AiRequest, prompt: str) -> dict[str, Any]:
    options = request.options.image
    payload: dict[str, Any] = {"model": model.name, "prompt": prompt, "n": 1}
    if options is not None:
        payload["size"] = options.size
        if options.quality != "auto":
            payload["quality"] = options.quality
    if model.name.startswith("dall-e"):
        payload["response_format"] = "b64_json"
    return payload


async def generate_image(
    transport: HttpTransport, model: ModelSpec, request: AiRequest
) -> AiResponse:
    started = time.perf_counter()
    prompt = "\n\n".join(m.content for m in request.messages if m.role == Role.user and m.content)
    if not prompt:
        raise transport.fail(ErrorKind.bad_request, "no prompt for the image", model=model.name)
    body = await transport.post_json(
        "/images/generations", _payload(model, request, prompt), model=model.name
    )
    data = body.get("data") if isinstance(body, dict) else None
    try:
        encoded = data[0]["b64_json"]  # type: ignore[index]
        image = base64.b64decode(encoded, validate=True)
    except (TypeError, KeyError, IndexError, binascii.Error) as error:
        raise transport.fail(
            ErrorKind.bad_reply, "reply without a base64 image", model=model.name
        ) from error
    usage = body.get("usage") if isinstance(body, dict) else None
    if isinstance(usage, dict) and "output_tokens" in usage:
        counted = Usage(int(usage.get("input_tokens") or 0), int(usage.get("output_tokens") or 0))
    else:  # DALL·E reports none; the catalog's output limit is the worst case
        counted = Usage(estimate_tokens(prompt), model.max_output_tokens)
    mime = MIME.get(str(body.get("output_format") or "png"), "image/png")
    revised = str(data[0].get("revised_prompt") or "")  # type: ignore[index]
    images = (ImagePart(image, mime),)
    return model_reply(model.provider, model, started, revised, counted, images=images)
