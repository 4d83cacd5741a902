"""`POST /embeddings` through the gateway's embedding operation: neutralized and billed like
every embedding call, with the requested model only (vectors of different models do not mix,
so there is no fallback)."""

from __future__ import annotations

import base64
import struct
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from agentur.ai.service import AiService
from agentur.api.openai_compatible.errors import OpenAIError, model_not_found
from agentur.api.openai_compatible.gateway_models import is_embedding, usable_model
from agentur.context import RequestContext

MAX_INPUTS = 2_048  # OpenAI's limit per request


class EmbeddingRequest(BaseModel):
    model_config = ConfigDict(extra="allow")

    model: str = Field(min_length=1)
    input: str | list[str] | list[int] | list[list[int]]
    encoding_format: Literal["float", "base64"] = "float"
    dimensions: int | None = Field(default=None, ge=1)
    user: str | None = None  # accepted, not forwarded (as for chat completions)

    def texts(self) -> list[str]:
        if isinstance(self.input, str):
            return [self.input]
        if any(not isinstance(item, str) for item in self.input):
            raise OpenAIError(
                400,
                "token arrays are not supported; send the input as text",
                param="input",
                code="unsupported_parameter",
            )
        if not self.input or len(self.input) > MAX_INPUTS:
            raise OpenAIError(400, f"input needs 1 to {MAX_INPUTS} texts", param="input")
        return list(self.input)  # type: ignore[arg-type]


def _encoded(vector: list[float], encoding: str) -> list[float] | str:
    if encoding == "float":
        return vector
    return base64.b64encode(struct.pack(f"<{len(vector)}f", *vector)).decode("ascii")


async def embed(ai: AiService, body: EmbeddingRequest, context: RequestContext) -> dict[str, Any]:
    for name in body.model_extra or {}:
        raise OpenAIError(400, f"Unrecognized request argument supplied: {name}", param=name)
    spec = await usable_model(ai, context, body.model)
    if spec is None:
        raise model_not_found(body.model)
    if not is_embedding(spec):
        raise OpenAIError(
            400, f"{body.model} is not an embedding model", param="model", code="invalid_model"
        )
    texts = body.texts()
    if body.dimensions is not None and body.dimensions != spec.embedding_dimensions:
        raise OpenAIError(
            400,
            f"dimensions: {body.model} gives {spec.embedding_dimensions} dimensions only",
            param="dimensions",
            code="unsupported_parameter",
        )
    result = await ai.embed(texts, "openai_compatible", context, model=spec.id)
    return {
        "object": "list",
        "data": [
            {
                "object": "embedding",
                "index": index,
                "embedding": _encoded(vector, body.encoding_format),
            }
            for index, vector in enumerate(result.vectors)
        ],
        "model": spec.id,
        "usage": {"prompt_tokens": result.tokens, "total_tokens": result.tokens},
    }
