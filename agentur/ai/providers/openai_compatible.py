"""Any OpenAI-compatible server (Ollama, vLLM, llama.cpp server, LM Studio …).

The base URL is required (e.g. `http://localhost:11434/v1` for Ollama); the key is optional
because local servers usually have none. Tool schemas go without `strict` (see openai_chat).
"""

from __future__ import annotations

from agentur.ai.providers.openai_chat import OpenAIChatProvider


class OpenAICompatibleProvider(OpenAIChatProvider):
    name = "openai_compatible"
