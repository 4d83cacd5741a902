"""The hosted vendors (each adapter module declares its adapter and settings as `VENDOR`) and
the models each is known to offer: capabilities, context window, max output, and a quality/speed
rank for the selector. Token prices come from the `genai-prices` table (offline snapshot
shipped in the package), prices per request from `REQUEST_PRICES_USD` below, each unless
overridden by `AGENTUR_MODEL_PRICES`."""

from __future__ import annotations

from dataclasses import dataclass, replace
from functools import lru_cache

from agentur.ai.model_spec import Capability, ModelSpec
from agentur.ai.providers import anthropic, google, mistral, openai, perplexity, tavily
from agentur.ai.providers.vendor import Vendor
from agentur.ai.settings import PriceOverride

STT, TTS, IMG = Capability.speech_to_text, Capability.text_to_speech, Capability.image_generation
T, V, S, R, E, SO, W = (
    Capability.tools,
    Capability.vision,
    Capability.streaming,
    Capability.reasoning,
    Capability.embeddings,
    Capability.structured_output,
    Capability.web_search,
)
CHAT = frozenset({T, S, SO})
CHAT_VISION = CHAT | {V}
REASONING = CHAT_VISION | {R}


@dataclass(frozen=True, slots=True)
class CatalogEntry:
    name: str
    capabilities: frozenset[Capability]
    context_window: int
    max_output_tokens: int
    quality: int  # 1..10, higher is better (selector ranking "quality")
    speed: int  # 1..10, higher is faster (selector ranking "speed")
    embedding_dimensions: int | None = None


def _chat(name: str, caps: frozenset[Capability], ctx: int, out: int, q: int, s: int):
    return CatalogEntry(name, caps, ctx, out, q, s)


def _embedding(name: str, dimensions: int, ctx: int = 8_191) -> CatalogEntry:
    return CatalogEntry(name, frozenset({E}), ctx, 0, 5, 9, dimensions)


# The one list of hosted vendors, with their known models.
CATALOG: dict[Vendor, tuple[CatalogEntry, ...]] = {
    openai.VENDOR: (
        _chat("gpt-5", REASONING, 400_000, 128_000, 10, 4),
        _chat("gpt-5-mini", REASONING, 400_000, 128_000, 8, 7),
        _chat("gpt-4.1", CHAT_VISION, 1_047_576, 32_768, 8, 6),
        _chat("gpt-4.1-mini", CHAT_VISION, 1_047_576, 32_768, 7, 8),
        _chat("gpt-4o-mini", CHAT_VISION, 128_000, 16_384, 5, 9),
        _chat("o4-mini", REASONING, 200_000, 100_000, 8, 5),
        _embedding("text-embedding-3-small", 1536),
        _embedding("text-embedding-3-large", 3072),
        # /audio/transcriptions and /audio/speech (OpenAI caps speech input at 4,096 chars)
        CatalogEntry("gpt-4o-mini-transcribe", frozenset({STT}), 16_000, 2_000, 7, 8),
        CatalogEntry("gpt-4o-mini-tts", frozenset({TTS}), 2_000, 0, 7, 8),
        # /images/generations; output is billed as image tokens (up to ~6,240 at high quality)
        CatalogEntry("gpt-image-1", frozenset({IMG}), 32_000, 6_240, 9, 4),
        CatalogEntry("gpt-image-1-mini", frozenset({IMG}), 32_000, 6_240, 7, 7),
    ),
    anthropic.VENDOR: (
        _chat("claude-sonnet-4-5", REASONING, 200_000, 64_000, 10, 5),
        _chat("claude-haiku-4-5", CHAT_VISION, 200_000, 64_000, 7, 8),
        _chat("claude-opus-4-1", REASONING, 200_000, 32_000, 10, 3),
    ),
    google.VENDOR: (
        _chat("gemini-2.5-pro", REASONING, 1_048_576, 65_536, 9, 5),
        _chat("gemini-2.5-flash", REASONING, 1_048_576, 65_536, 7, 8),
        _embedding("gemini-embedding-001", 3072, 2_048),
    ),
    mistral.VENDOR: (
        _chat("mistral-large-latest", CHAT, 128_000, 16_384, 7, 6),
        _chat("mistral-small-latest", CHAT_VISION, 128_000, 16_384, 5, 8),
        _embedding("mistral-embed", 1024),
    ),
    perplexity.VENDOR: (
        _chat("sonar", frozenset({S, W}), 127_072, 8_000, 6, 7),
        _chat("sonar-pro", frozenset({S, W}), 200_000, 8_000, 8, 5),
    ),
    tavily.VENDOR: (
        CatalogEntry("search", frozenset({W}), 32_000, 8_000, 6, 8),
        # deeper extraction, twice the price; as good an engine, so never chosen over basic
        # unless asked for by name (`model`, AGENTUR_DEFAULT_MODEL)
        CatalogEntry("search-advanced", frozenset({W}), 32_000, 8_000, 6, 5),
    ),
}
VENDORS: tuple[Vendor, ...] = tuple(CATALOG)
_ENTRIES = {vendor.name: entries for vendor, entries in CATALOG.items()}
# Prices per call in USD of services that bill per request, from the vendors' public price
# pages as read on 2026-12-02:
# - Tavily bills API credits, 1 per basic and 2 per advanced search, at $0.008 per credit
#   pay-as-you-go (monthly plans $0.0075-0.005): https://docs.tavily.com/documentation/api-credits
# - Perplexity's Sonar models add a request fee to their token prices, by search context size;
#   agentur asks for none, so Perplexity's default "low" applies: $5 (sonar) and $6 (sonar-pro)
#   per 1,000 requests: https://docs.perplexity.ai/getting-started/pricing and the model pages
#   https://docs.perplexity.ai/docs/legacy/sonar/models/sonar (…/sonar-pro)
REQUEST_PRICES_USD: dict[str, float] = {
    "tavily:search": 1 * 0.008,
    "tavily:search-advanced": 2 * 0.008,
    "perplexity:sonar": 5 / 1_000,
    "perplexity:sonar-pro": 6 / 1_000,
}
# Providers that bill per request only: the tokens they report are estimates and cost nothing.
PER_REQUEST_ONLY = frozenset({"tavily"})
# What we assume about a model a server names but the catalog does not know.
UNKNOWN_QUALITY = 5
UNKNOWN_SPEED = 5


def catalog_entry(provider: str, name: str) -> CatalogEntry | None:
    for entry in _ENTRIES.get(provider, ()):
        if entry.name == name:
            return entry
    return None


@lru_cache(maxsize=512)
def genai_price(provider: str, name: str) -> tuple[float, float, float, float] | None:
    """(input, output, cached input, cache write) USD per million tokens, or None when not in
    the table (which gives the input price where a model has no cache price)."""
    try:
        from genai_prices import Usage, calc_price
    except ImportError:  # the table is optional at run time; prices can come from config
        return None
    # Priced at a small usage and scaled, so long-context tiers don't distort the base price.
    sample = 1_000
    try:
        base = calc_price(
            Usage(input_tokens=sample, output_tokens=sample), name, provider_id=provider
        )
        cached = calc_price(
            Usage(input_tokens=sample, cache_read_tokens=sample), name, provider_id=provider
        )
        written = calc_price(
            Usage(input_tokens=sample, cache_write_tokens=sample), name, provider_id=provider
        )
    except (LookupError, ValueError):
        return None
    scale = 1_000_000 / sample
    return (
        round(float(base.input_price) * scale, 6),
        round(float(base.output_price) * scale, 6),
        round(float(cached.input_price) * scale, 6),
        round(float(written.input_price) * scale, 6),
    )


def with_prices(
    spec: ModelSpec, overrides: dict[str, PriceOverride], *, free: bool = False
) -> ModelSpec:
    """`spec` with prices. Tokens: the config override, else what the adapter set, else 0 for
    services billed per request only, else genai-prices, else 0 for local (`free`) models,
    else unknown. Per request: the config override, else what the adapter set, else
    `REQUEST_PRICES_USD`, else none."""
    override = overrides.get(spec.id)
    request = override.request if override is not None else None
    if request is None:
        request = spec.request_price_usd
    if request is None:
        request = REQUEST_PRICES_USD.get(spec.id)
    return replace(_with_token_prices(spec, override, free=free), request_price_usd=request)


def _with_token_prices(spec: ModelSpec, override: PriceOverride | None, *, free: bool) -> ModelSpec:
    if override is not None and override.input is not None:
        return replace(
            spec,
            input_price_usd_per_mtok=override.input,
            output_price_usd_per_mtok=override.output,
            cached_input_price_usd_per_mtok=override.cached_input,
            cache_write_price_usd_per_mtok=override.cache_write,
        )
    if spec.is_priced:
        return spec
    if spec.provider in PER_REQUEST_ONLY:
        return replace(spec, input_price_usd_per_mtok=0.0, output_price_usd_per_mtok=0.0)
    looked_up = genai_price(spec.provider, spec.name)
    if looked_up is not None:
        return replace(
            spec,
            input_price_usd_per_mtok=looked_up[0],
            output_price_usd_per_mtok=looked_up[1],
            cached_input_price_usd_per_mtok=looked_up[2],
            cache_write_price_usd_per_mtok=looked_up[3],
        )
    if free:
        return replace(spec, input_price_usd_per_mtok=0.0, output_price_usd_per_mtok=0.0)
    return spec


def catalog_specs(provider: str) -> list[ModelSpec]:
    """The catalog's models of one provider as specs (without prices)."""
    return [
        ModelSpec(
            provider=provider,
            name=entry.name,
            capabilities=entry.capabilities,
            context_window=entry.context_window,
            max_output_tokens=entry.max_output_tokens,
            embedding_dimensions=entry.embedding_dimensions,
        )
        for entry in _ENTRIES.get(provider, ())
    ]
