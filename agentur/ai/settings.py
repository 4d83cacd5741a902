"""AI gateway settings: default model, CHF rate, neutralization default, retry and timeout
limits. A provider is active iff its settings are present; a hosted vendor's key and base URL
are declared in its adapter module (`agentur/ai/providers/`), the OpenAI-compatible server's
settings beside its adapter (`openai_compatible_settings.py`)."""

from __future__ import annotations

from enum import StrEnum
from typing import Literal

from pydantic import BaseModel, Field, field_validator, model_validator

from agentur.config import PartSettings, count, seconds


class NeutralizationPolicy(StrEnum):
    off = "off"
    neutralize = "neutralize"
    block = "block"


class Ranking(StrEnum):
    quality = "quality"
    cost = "cost"
    speed = "speed"


class PriceOverride(BaseModel):
    """Overrides the built-in prices of one `provider:model`: token prices in USD per million
    tokens (input and output together replace the table's; cache prices left out cost the
    input price), `request` in USD per call (a search engine's price per request). What is
    left out keeps the built-in price."""

    input: float | None = Field(default=None, ge=0)
    output: float | None = Field(default=None, ge=0)
    cached_input: float | None = Field(default=None, ge=0)
    cache_write: float | None = Field(default=None, ge=0)
    request: float | None = Field(default=None, ge=0)

    @model_validator(mode="after")
    def _complete(self) -> PriceOverride:
        if (self.input is None) != (self.output is None):
            raise ValueError("give both `input` and `output` token prices, or neither")
        if self.input is None and (self.cached_input is not None or self.cache_write is not None):
            raise ValueError("cache prices need the `input` and `output` token prices")
        if self.input is None and self.request is None:
            raise ValueError("give token prices (`input`, `output`), a `request` price, or both")
        return self


_OPTIONAL_TEXT_FIELDS = ("default_model", "neutralization_key")


class AiSettings(PartSettings):
    # The on-device embedder's model; named after the knowledge store, which it serves.
    knowledge_local_embedding_model: Literal[
        "multilingual-e5-small", "all-minilm-l6-v2", "none"
    ] = Field(
        default="multilingual-e5-small",
        description="On-device embedding model of the `local` provider; `none` switches it off.",
    )
    scripted: bool = Field(
        default=False,
        description="Activate the offline scripted provider (demos, tests). Never on by default.",
    )
    default_model: str | None = Field(
        default=None,
        description="Preferred `provider:model` (e.g. `openai:gpt-4.1-mini`); ranked first "
        "when it fits the request.",
    )
    model_ranking: Ranking = Field(
        default=Ranking.quality, description="Selector preference: quality, cost or speed."
    )
    model_prices: dict[str, PriceOverride] = Field(
        default_factory=dict,
        description='Price overrides as JSON: `{"provider:model": {"input": 0.4, "output": '
        '1.6, "cached_input": 0.1, "cache_write": 0.5, "request": 0.005}}`, token prices in '
        "USD per million tokens (cache prices left out cost the input price), `request` in "
        "USD per call (search engines bill per request; e.g. "
        '`{"tavily:search": {"request": 0.005}}`). Left out: the built-in price.',
    )
    usd_to_chf: float = Field(
        default=0.80,
        gt=0,
        description="Exchange rate USD→CHF applied to provider prices; stamped on every "
        "ledger row.",
    )
    neutralization_policy: NeutralizationPolicy = Field(
        default=NeutralizationPolicy.off,
        description="Default neutralization policy for mandates without their own: "
        "off, neutralize or block.",
    )
    neutralization_key: str | None = Field(
        default=None,
        description="Fernet key encrypting neutralization mappings at rest. Empty: a key "
        "generated once in `<data_dir>/neutralization.key`.",
    )
    allow_unpriced_models: bool = Field(
        default=False,
        description="Default for mandates without their own setting: allow models whose "
        "price is unknown.",
    )
    default_monthly_limit_chf: float | None = Field(
        default=None,
        ge=0,
        description="Monthly spending limit in CHF for mandates without their own. "
        "Empty: no limit.",
    )
    max_retries: int = Field(
        default=2, ge=0, le=10, description="Retries per model on 429, 5xx, timeouts."
    )
    retry_base_delay_seconds: float = Field(
        default=0.5, ge=0, description="First backoff delay; doubles per retry, with jitter."
    )
    retry_max_delay_seconds: float = Field(
        default=20.0, ge=0, description="Longest single backoff delay (also caps Retry-After)."
    )
    image_max_input_bytes: int = count(
        20_000_000, "Largest image (bytes, as given) a call may carry; larger ones are refused."
    )
    image_max_edge_px: int = Field(
        default=1568,
        ge=64,
        description="Images whose longer edge exceeds this are scaled down before sending "
        "(Anthropic's recommended size; larger images cost tokens without helping).",
    )
    image_max_bytes: int = Field(
        default=5_000_000,
        ge=10_000,
        description="Largest encoded image sent to a provider (Anthropic's per-image limit, "
        "the smallest of the providers); larger ones are re-encoded as JPEG and scaled down.",
    )
    max_fallbacks: int = Field(
        default=2, ge=0, le=10, description="Further ranked models tried after one fails."
    )
    connect_timeout_seconds: float = seconds(
        10.0, "Time limit for connecting to a provider (retried)."
    )
    first_token_timeout_seconds: float = seconds(
        120.0,
        "Longest wait for the first byte of a streamed reply. Not retried on the "
        "same provider: the server may still be reading the prompt.",
    )
    stream_idle_timeout_seconds: float = seconds(
        60.0,
        "Longest silence between two lines of a stream once it began (retried "
        "while no text reached the caller).",
    )
    request_timeout_seconds: float = seconds(
        120.0,
        "Time limit of one whole non-streamed provider call (not retried on the same provider).",
    )
    stop_repeated_output_chars: int = Field(
        default=1_024,
        ge=0,
        description="A streamed reply is stopped once its last this many characters (of text, "
        "or of one tool call's arguments) are one piece repeated at least 3 times, or lines "
        "the reply already wrote — a model caught in a loop; the text before the loop is kept, "
        "finish reason `repetition`. 0: never stopped.",
    )
    mandate_settings_cache_seconds: float = Field(
        default=5.0,
        ge=0,
        description="How long a worker reuses a mandate's AI settings before re-reading them.",
    )
    billing_reservation_seconds: float = seconds(
        3_600.0,
        "A call's worst-case cost is held against the balance and monthly limit "
        "until it is charged; a hold left by a worker that died stops counting after this.",
    )

    @field_validator(*_OPTIONAL_TEXT_FIELDS, mode="before")
    @classmethod
    def _empty_means_unset(cls, value: object) -> object:
        # `AGENTUR_DEFAULT_MODEL=` in an env file means "not configured", not "empty name".
        return None if value == "" else value
