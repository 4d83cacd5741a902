"""`describe_image`: a workspace image described — or a question about it answered — by
a vision model through the gateway's `image_analyse` operation (selection of vision-capable
models, size limits and scaling, billing; never sent under neutralization policy `block`)."""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, Field

from agentur.ai.messages import ImagePart, Message
from agentur.ai.operation_types import OperationType
from agentur.errors import InvalidInputError
from agentur.tools.gateway_call import ask_model
from agentur.tools.tool import Tool, ToolContext
from agentur.tools.workspace_access import file_service

DEFAULT_QUESTION = (
    "Describe this image: what it shows, any text in it (quoted), and anything notable for "
    "a business reader (figures, dates, layout)."
)
OUTPUT_TOKENS = 1_500
MISSING = (
    "no vision model is configured to look at images; configure a provider with one "
    "(e.g. AGENTUR_OPENAI_API_KEY for gpt-4.1-mini, AGENTUR_ANTHROPIC_API_KEY, "
    "AGENTUR_GOOGLE_API_KEY)"
)


class DescribeImageArguments(BaseModel):
    file_id: str = Field(description="A workspace image (PNG, JPEG, GIF, WebP, TIFF, BMP).")
    question: str | None = Field(
        default=None, max_length=2_000, description="What to find out; default: describe it."
    )


async def describe_image(args: DescribeImageArguments, context: ToolContext) -> dict[str, Any]:
    async with file_service(context) as files:
        file, data = await files.read_bytes(args.file_id)
    if not file.mime_type.startswith("image/"):
        raise InvalidInputError(
            f"{file.name} is {file.mime_type}, not an image; read documents with the "
            "document tools instead"
        )
    if file.neutralize:
        # The file's duty is that models see it only neutralized; an image cannot be.
        raise InvalidInputError(
            f"{file.name} is marked 'neutralize' and an image cannot be neutralized, so it is "
            "not sent to a model"
        )
    image = ImagePart(data, file.mime_type)
    question = Message.user(args.question or DEFAULT_QUESTION, images=(image,))
    response = await ask_model(
        context, OperationType.image_analyse, [question], MISSING, max_output_tokens=OUTPUT_TOKENS
    )
    return {
        "file_id": file.id,
        "name": file.name,
        "answer": response.text,
        "model": response.model,
    }


TOOLS = [
    Tool(
        name="describe_image",
        description="Describe a workspace image or answer a question about it (vision model).",
        arguments=DescribeImageArguments,
        handler=describe_image,
        read_only=True,
        toolbox="ai",
        timeout_seconds=180.0,
    )
]
