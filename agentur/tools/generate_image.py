"""`generate_image`: an image from a prompt, through the gateway's `image_generate`
operation (OpenAI images wire format; the prompt is neutralized and the call billed like every
other), saved as a workspace file."""

from __future__ import annotations

from pathlib import PurePosixPath
from typing import Any, Literal

from pydantic import BaseModel, Field

from agentur.ai.messages import ImageOptions, Message
from agentur.ai.operation_types import OperationType
from agentur.errors import AgenturError
from agentur.tools.gateway_call import ask_model
from agentur.tools.tool import Tool, ToolContext
from agentur.tools.workspace_access import store_file
from agentur.tools.workspace_files import describe

MISSING = (
    "no image generation model is configured; set AGENTUR_OPENAI_API_KEY (gpt-image-1) or "
    "name an image model of an OpenAI-compatible server"
)
SUFFIX = {"image/png": ".png", "image/jpeg": ".jpg", "image/webp": ".webp"}


class GenerateImageArguments(BaseModel):
    prompt: str = Field(min_length=1, max_length=4_000, description="What the image shows.")
    size: Literal["1024x1024", "1536x1024", "1024x1536", "auto"] = "1024x1024"
    quality: Literal["low", "medium", "high", "auto"] = "auto"
    save_as: str | None = Field(
        default=None, min_length=1, max_length=255, description="File name (default image.png)."
    )


async def generate_image(args: GenerateImageArguments, context: ToolContext) -> dict[str, Any]:
    options = ImageOptions(size=args.size, quality=args.quality)
    prompt = Message.user(args.prompt)
    response = await ask_model(
        context, OperationType.image_generate, [prompt], MISSING, image=options
    )
    if not response.images:
        raise AgenturError(f"{response.model} returned no image")
    image = response.images[0]
    suffix = SUFFIX.get(image.mime_type, ".png")
    name = args.save_as or "image"
    if PurePosixPath(name).suffix.lower() != suffix:
        name = f"{PurePosixPath(name).stem}{suffix}"
    saved = await store_file(context, name, image.data, image.mime_type)
    return {**describe(saved), "model": response.model, "revised_prompt": response.text or None}


TOOLS = [
    Tool(
        name="generate_image",
        description="Generate an image from a text prompt and save it as a workspace file.",
        arguments=GenerateImageArguments,
        handler=generate_image,
        toolbox="ai",
        timeout_seconds=300.0,
    )
]
