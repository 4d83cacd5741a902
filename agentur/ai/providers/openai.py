"""OpenAI (api.openai.com): chat completions and embeddings, Bearer key."""

from __future__ import annotations

from typing import Any, ClassVar

from agentur.ai.model_spec import ModelSpec
from agentur.ai.providers.openai_chat import OpenAIChatProvider

OPENAI_BASE_URL = "https://api.openai.com/v1"


class OpenAIProvider(OpenAIChatProvider):
    name = "openai"
    default_base_url: ClassVar[str | None] = OPENAI_BASE_URL

    def embedding_options(self, model: ModelSpec) -> dict[str, Any]:
        # text-embedding-3-* can shorten vectors; the registry's dimension is then the contract.
        if model.name.startswith("text-embedding-3") and model.embedding_dimensions:
            return {"dimensions": model.embedding_dimensions}
        return {}
