"""Any OpenAI-compatible server (Ollama, vLLM, llama.cpp server, LM Studio …).

The base URL is required (e.g. `http://localhost:11434/v1` for Ollama); the key is optional
because local servers usually have none. Tool schemas go without `strict` (see openai_chat).
For llama-server, requests ask for its prompt cache and may name a slot per workflow.
"""

from __future__ import annotations

import zlib
from typing import Any

from agentur.ai.messages import AiRequest
from agentur.ai.model_spec import ModelSpec
from agentur.ai.providers.openai_chat import OpenAIChatProvider
from agentur.ai.providers.openai_embeddings import OpenAIEmbeddingModels
from agentur.ai.providers.openai_media import OpenAIMediaModels


class OpenAICompatibleProvider(OpenAIMediaModels, OpenAIEmbeddingModels, OpenAIChatProvider):
    name = "openai_compatible"

    def build_payload(self, model: ModelSpec, request: AiRequest, *, stream: bool) -> dict:
        """llama-server keeps a prompt prefix per slot: `cache_prompt` asks it to reuse it, and
        with `server_slots` set a workflow's calls name one slot (`id_slot`, stable per
        workflow), so a run's later rounds and runs find their prefix cached. Servers that do
        not know these fields ignore them."""
        payload: dict[str, Any] = super().build_payload(model, request, stream=stream)
        payload["cache_prompt"] = True
        if model.server_slots and request.workflow_id:
            payload["id_slot"] = zlib.crc32(request.workflow_id.encode()) % model.server_slots
        return payload
