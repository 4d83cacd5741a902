"""Cost of a call from the model's prices (USD per million tokens, plus a price per call for
services billed per request) and the CHF rate: the estimate that picks models, the upper bound
that a call's budget hold covers, and the cost of what the provider reported."""

from __future__ import annotations

import io
import json
import math

from PIL import Image, UnidentifiedImageError

from agentur.ai.messages import AiRequest, ImagePart, Usage
from agentur.ai.model_spec import ModelSpec

MILLION = 1_000_000
# Per-message framing tokens providers add (role markers etc.); errs on the high side.
MESSAGE_OVERHEAD_TOKENS = 4
# A full-size image (about 1.15 megapixels) in Anthropic's count; OpenAI and Gemini count fewer.
IMAGE_TOKENS = 1_600
# Anthropic's count for an image is width × height / 750 pixels, the largest of the vendors'
# formulas for the sizes the gateway sends (OpenAI's 170 per 512-px tile after scaling to
# 768 px and Gemini's 258 per 768-px tile are smaller).
PIXELS_PER_IMAGE_TOKEN = 750
# The system prompt a vendor adds when a request carries tools (Anthropic documents 346
# tokens for its models; OpenAI's is smaller), rounded up.
TOOLS_PREAMBLE_TOKENS = 600


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


def prompt_token_bound(request: AiRequest) -> int:
    """An upper bound of the prompt tokens any provider can count for `request` (what a
    call's budget hold covers; `estimate_prompt_tokens` is the typical count, for picking
    models). Text counts one token per UTF-8 byte: the vendors' tokenizers are byte-level BPE
    (OpenAI, Anthropic, Mistral's tekken, Llama 3) or SentencePiece with byte fallback
    (Gemini), so every token stands for at least one byte of the text and a text of n bytes
    is at most n tokens. Tool schemas and tool-call arguments count as the JSON bytes sent;
    each message adds its framing, a request with tools the vendor's tool preamble, and each
    image its pixel count by Anthropic's formula."""
    total = TOOLS_PREAMBLE_TOKENS if request.tools else 0
    for message in request.messages:
        total += _bytes(message.content) + MESSAGE_OVERHEAD_TOKENS
        total += sum(image_token_bound(image) for image in message.images)
        for call in message.tool_calls:
            total += _bytes(call.name) + _bytes(json.dumps(call.arguments, ensure_ascii=False))
    for tool in request.tools:
        schema = json.dumps(tool.parameters, ensure_ascii=False)
        total += _bytes(tool.name) + _bytes(tool.description) + _bytes(schema)
        total += MESSAGE_OVERHEAD_TOKENS
    return total


def image_token_bound(image: ImagePart) -> int:
    """Reads only the image's header (its size); an unreadable one counts as full size."""
    try:
        with Image.open(io.BytesIO(image.data)) as opened:
            width, height = opened.size
    except (UnidentifiedImageError, OSError):
        return IMAGE_TOKENS
    return max(IMAGE_TOKENS, math.ceil(width * height / PIXELS_PER_IMAGE_TOKEN))


def _bytes(text: str) -> int:
    return len(text.encode("utf-8", "surrogatepass"))


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
    """A call's typical worst case at list prices (ranks models by cost)."""
    return cost_usd(spec, Usage(input_tokens=prompt_tokens, output_tokens=output_tokens))


def hold_usd(spec: ModelSpec, prompt_tokens: int, output_tokens: int) -> float:
    """The most `prompt_tokens` and `output_tokens` can cost: every prompt token at the
    dearest of the input, cached-input and cache-write prices (a provider decides what it
    caches; Anthropic bills cache writes above the input price), plus the price per request of
    services billed per call."""
    if not spec.is_priced:
        return 0.0
    input_price = spec.input_price_usd_per_mtok or 0.0
    dearest = max(
        input_price,
        _or(spec.cached_input_price_usd_per_mtok, input_price),
        _or(spec.cache_write_price_usd_per_mtok, input_price),
    )
    output_price = spec.output_price_usd_per_mtok or 0.0
    tokens = (prompt_tokens * dearest + output_tokens * output_price) / MILLION
    return tokens + (spec.request_price_usd or 0.0)
