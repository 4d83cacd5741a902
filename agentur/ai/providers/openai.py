"""OpenAI (api.openai.com): chat completions, embeddings, speech, transcription and images,
Bearer key."""

from __future__ import annotations

from typing import Any, ClassVar

from pydantic import Field

from agentur.ai.model_spec import ModelSpec
from agentur.ai.providers.openai_chat import OpenAIChatProvider
from agentur.ai.providers.openai_embeddings import OpenAIEmbeddingModels
from agentur.ai.providers.openai_media import OpenAIMediaModels
from agentur.ai.providers.vendor import Vendor, VendorSettings

OPENAI_BASE_URL = "https://api.openai.com/v1"


class OpenAIProvider(OpenAIMediaModels, OpenAIEmbeddingModels, OpenAIChatProvider):
    name = "openai"
    default_base_url: ClassVar[str | None] = OPENAI_BASE_URL

    def embedding_options(self, model: ModelSpec) -> dict[str, Any]:
        # text-embedding-3-* can shorten vectors; the registry's dimension is then the contract.
        if model.name.startswith("text-embedding-3") and model.embedding_dimensions:
            return {"dimensions": model.embedding_dimensions}
        return {}


class OpenAISettings(VendorSettings):
    openai_api_key: str | None = Field(default=None, description="OpenAI API key.")
    openai_base_url: str | None = Field(default=None, description="OpenAI base URL override.")


VENDOR = Vendor(OpenAISettings, OpenAIProvider)
