"""Embeddings in OpenAI's wire format (`POST /embeddings`): offered by OpenAI, Mistral and
OpenAI-compatible servers, not by every adapter that speaks OpenAI's chat format."""

from __future__ import annotations

from typing import Any

from agentur.ai.model_spec import ModelSpec
from agentur.ai.providers.http_transport import HttpTransport


class OpenAIEmbeddingModels:
    """Mixed into an OpenAI-format adapter: `EmbeddingModels` (agentur.ai.model_kinds) over the
    adapter's transport, in batches."""

    transport: HttpTransport
    embedding_batch_size: int = 256  # OpenAI allows 2048 inputs; smaller keeps bodies small

    def embedding_options(self, model: ModelSpec) -> dict[str, Any]:
        return {}

    async def embed(self, model: ModelSpec, texts: list[str]) -> tuple[list[list[float]], int]:
        vectors: list[list[float]] = []
        tokens = 0
        for start in range(0, len(texts), self.embedding_batch_size):
            batch = texts[start : start + self.embedding_batch_size]
            payload = {"model": model.name, "input": batch, **self.embedding_options(model)}
            body = await self.transport.post_json("/embeddings", payload, model=model.name)
            data = sorted(body.get("data") or [], key=lambda item: item.get("index", 0))
            self.transport.check_embedding_count(len(data), len(batch), model=model.name)
            vectors += [[float(value) for value in item["embedding"]] for item in data]
            tokens += int((body.get("usage") or {}).get("prompt_tokens") or 0)
        return vectors, tokens
