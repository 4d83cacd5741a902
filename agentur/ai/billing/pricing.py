"""Cost of a call from the model's prices (USD per million tokens, plus a price per call for
services billed per request) and the CHF rate."""

from __future__ import annotations

import math

from agentur.ai.messages import AiRequest, Usage
from agentur.ai.model_spec import ModelSpec

MILLION = 1_000_000
# Per-message framing tokens providers add (role markers etc.); errs on the high side.
MESSAGE_OVERHEAD_TOKENS = 4
# A full-size image (about 1.15 megapixels) in Anthropic's count; OpenAI and Gemini count fewer.
IMAGE_TOKENS = 1_600


def cost_usd(spec: ModelSpec, usage: Usage) -> float:
    """The cost of one call with `usage`: its tokens plus the model's price per call (a search
    engine's price per request). 0.0 for unpriced models; the gateway refuses those before the
    call unless allowed. Input tokens read from the provider's prompt cache cost the cached
    price, those written to it the cache-write price (each the input price when the model has
    none)."""
    if not spec.is_priced:
        return 0.0
    input_price = spec.input_price_usd_per_mtok or 0.0
    cached = min(usage.cached_tokens, usage.input_tokens)
    written = min(usage.cache_write_tokens, usage.input_tokens - cached)
    tokens = (
        (usage.input_tokens - cached - written) * input_price
        + cached * _or(spec.cached_input_price_usd_per_mtok, input_price)
        + written * _or(spec.cache_write_price_usd_per_mtok, input_price)
        + usage.output_tokens * (spec.output_price_usd_per_mtok or 0.0)
    ) / MILLION
    return tokens + (spec.request_price_usd or 0.0)


def _or(price: float | None, default: float) -> float:
    return default if price is None else price


def estimate_tokens(text: str) -> int:
    # ~4 characters per token for European languages; rounding up keeps the preflight safe.
    return math.ceil(len(text) / 4)


def estimate_prompt_tokens(request: AiRequest) -> int:
    total = 0
    for message in request.messages:
        total += estimate_tokens(message.content) + MESSAGE_OVERHEAD_TOKENS
        total += IMAGE_TOKENS * len(message.images)
        for call in message.tool_calls:
            total += estimate_tokens(call.name) + estimate_tokens(str(call.arguments))
    for tool in request.tools:
        total += estimate_tokens(tool.name + tool.description + str(tool.parameters))
    return total


def max_output_tokens(spec: ModelSpec, request: AiRequest, prompt_tokens: int = 0) -> int:
    """The output limit sent with every call: the caller's (e.g. lowered by a budget), at most
    the model's, and no more than the context window leaves after the prompt (some servers
    refuse a request whose prompt plus limit exceeds the window)."""
    wanted = request.options.max_output_tokens
    limit = min(wanted, spec.max_output_tokens) if wanted else spec.max_output_tokens
    if prompt_tokens:
        limit = min(limit, max(1, spec.context_window - prompt_tokens))
    return limit


def worst_case_usd(spec: ModelSpec, prompt_tokens: int, output_tokens: int) -> float:
    return cost_usd(spec, Usage(input_tokens=prompt_tokens, output_tokens=output_tokens))
