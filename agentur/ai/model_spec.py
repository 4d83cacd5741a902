"""One entry of the model registry: what a model can do, how much it holds, what it costs."""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import StrEnum


class Capability(StrEnum):
    tools = "tools"
    vision = "vision"
    streaming = "streaming"
    reasoning = "reasoning"
    embeddings = "embeddings"
    structured_output = "structured_output"
    web_search = "web_search"
    speech_to_text = "speech_to_text"
    text_to_speech = "text_to_speech"
    image_generation = "image_generation"


@dataclass(frozen=True, slots=True)
class ModelSpec:
    provider: str
    name: str
    capabilities: frozenset[Capability] = field(default_factory=frozenset)
    context_window: int = 128_000
    max_output_tokens: int = 16_384
    # Prices in USD per million tokens; None means unknown (billing refuses unless allowed).
    input_price_usd_per_mtok: float | None = None
    output_price_usd_per_mtok: float | None = None
    cached_input_price_usd_per_mtok: float | None = None  # None: the input price
    cache_write_price_usd_per_mtok: float | None = None  # None: the input price
    # USD per call on top of the tokens (a search engine's price per request); None: none
    request_price_usd: float | None = None
    embedding_dimensions: int | None = None
    # Recover tool calls the model wrote as text (`<tool_call>…`, fenced JSON …) when the
    # server returned none — for local models whose chat template the server does not parse.
    recover_text_tool_calls: bool = False
    # The round's context joins the user's last message (marked off) instead of being its own
    # user turn: for chat templates that refuse two user turns in a row (Mistral, Gemma).
    join_round_context: bool = False
    # llama-server's parallel slots: > 0 sends each workflow's calls to one slot (`id_slot`)
    # so its prompt prefix stays in that slot's cache. 0: no slot is named.
    server_slots: int = 0

    @property
    def id(self) -> str:
        return f"{self.provider}:{self.name}"

    @property
    def is_priced(self) -> bool:
        return (
            self.input_price_usd_per_mtok is not None and self.output_price_usd_per_mtok is not None
        )

    def supports(self, *capabilities: Capability) -> bool:
        return all(capability in self.capabilities for capability in capabilities)
