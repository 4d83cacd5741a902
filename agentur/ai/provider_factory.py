"""Builds the active providers from `AiSettings`: a provider is active iff it is configured.

Vendor adapters get the catalog's models; an OpenAI-compatible server gets the names from
`AGENTUR_OPENAI_COMPATIBLE_MODELS`, or asks the server (`GET /models`) when that is empty.
Adapters are imported lazily, so an installation only loads what it uses. The scripted
provider is only active when `AGENTUR_SCRIPTED=1`."""

from __future__ import annotations

import importlib
import logging
from dataclasses import dataclass

import httpx

from agentur.ai.model_catalog import catalog_specs
from agentur.ai.model_spec import Capability, ModelSpec
from agentur.ai.providers.base import ModelProvider
from agentur.ai.providers.http_transport import Timeouts
from agentur.ai.settings import AiSettings

logger = logging.getLogger(__name__)

DISCOVERY_TIMEOUT_SECONDS = 5.0


@dataclass(frozen=True, slots=True)
class Vendor:
    name: str  # provider name and settings prefix
    module: str
    class_name: str


# The one list of vendors with a hosted API (their keys: `AiSettings.vendor_access`).
VENDORS = (
    Vendor("openai", "agentur.ai.providers.openai", "OpenAIProvider"),
    Vendor("anthropic", "agentur.ai.providers.anthropic", "AnthropicProvider"),
    Vendor("google", "agentur.ai.providers.google", "GoogleProvider"),
    Vendor("mistral", "agentur.ai.providers.mistral", "MistralProvider"),
    Vendor("perplexity", "agentur.ai.providers.perplexity", "PerplexityProvider"),
    Vendor("tavily", "agentur.ai.providers.tavily", "TavilyProvider"),
)
OPENAI_COMPATIBLE = Vendor(
    "openai_compatible", "agentur.ai.providers.openai_compatible", "OpenAICompatibleProvider"
)


def _adapter_class(vendor: Vendor) -> type | None:
    try:
        return getattr(importlib.import_module(vendor.module), vendor.class_name)
    except (ImportError, AttributeError):
        logger.warning("provider %s is configured but its adapter is not installed", vendor.name)
        return None


def _guess_capabilities(name: str) -> frozenset[Capability]:
    if "embed" in name.lower():
        return frozenset({Capability.embeddings})
    return frozenset({Capability.tools, Capability.streaming, Capability.structured_output})


def openai_compatible_specs(settings: AiSettings, names: list[str]) -> list[ModelSpec]:
    return [
        ModelSpec(
            provider=OPENAI_COMPATIBLE.name,
            name=name,
            capabilities=_guess_capabilities(name),
            context_window=settings.openai_compatible_context_window,
            max_output_tokens=settings.openai_compatible_max_output_tokens,
            recover_text_tool_calls=settings.openai_compatible_recover_text_tool_calls,
            join_round_context=settings.openai_compatible_join_round_context,
            server_slots=settings.openai_compatible_server_slots,
        )
        for name in names
    ]


def discover_model_names(base_url: str, api_key: str | None) -> list[str]:
    """The model ids an OpenAI-compatible server lists; [] when it cannot be reached."""
    headers = {"Authorization": f"Bearer {api_key}"} if api_key else {}
    try:
        reply = httpx.get(
            base_url.rstrip("/") + "/models", headers=headers, timeout=DISCOVERY_TIMEOUT_SECONDS
        )
        reply.raise_for_status()
        return [str(item["id"]) for item in reply.json().get("data", []) if "id" in item]
    except (httpx.HTTPError, ValueError, KeyError, TypeError, AttributeError) as error:
        logger.warning("could not list the OpenAI-compatible server's models: %s", error)
        return []


def provider_timeouts(settings: AiSettings, local_server: bool = False) -> Timeouts:
    """The limits every hosted provider shares, or the OpenAI-compatible server's own (a local
    server may read a prompt for minutes before it answers)."""
    if local_server:
        first_token = settings.openai_compatible_first_token_timeout_seconds
        idle = settings.openai_compatible_stream_idle_timeout_seconds
        request = settings.openai_compatible_request_timeout_seconds
        prefix = "AGENTUR_OPENAI_COMPATIBLE_"
    else:
        first_token = settings.first_token_timeout_seconds
        idle = settings.stream_idle_timeout_seconds
        request = settings.request_timeout_seconds
        prefix = "AGENTUR_"
    return Timeouts(settings.connect_timeout_seconds, first_token, idle, request, prefix)


def build_providers(settings: AiSettings) -> list[ModelProvider]:
    providers: list[ModelProvider] = []
    timeouts = provider_timeouts(settings)
    for vendor in VENDORS:
        api_key, base_url = settings.vendor_access()[vendor.name]
        if not api_key:
            continue
        adapter = _adapter_class(vendor)
        if adapter is not None:
            providers.append(
                adapter(
                    models=catalog_specs(vendor.name),
                    api_key=api_key,
                    base_url=base_url,
                    timeouts=timeouts,
                )
            )
    if settings.openai_compatible_base_url:
        adapter = _adapter_class(OPENAI_COMPATIBLE)
        names = settings.openai_compatible_model_names or discover_model_names(
            settings.openai_compatible_base_url, settings.openai_compatible_api_key
        )
        if adapter is not None and names:
            providers.append(
                adapter(
                    models=openai_compatible_specs(settings, names),
                    api_key=settings.openai_compatible_api_key,
                    base_url=settings.openai_compatible_base_url,
                    timeouts=provider_timeouts(settings, local_server=True),
                )
            )
    local_embedding = _optional_local_embedding(settings.knowledge_local_embedding_model)
    if local_embedding is not None:
        providers.append(local_embedding)
    if settings.scripted:
        from agentur.ai.providers.scripted import ScriptedProvider

        providers.append(ScriptedProvider())
    return providers


def _optional_local_embedding(name: str) -> ModelProvider | None:
    """The knowledge store's on-device embedding model; None when switched off or broken."""
    # Imported here: the module is only needed when the knowledge store embeds on-device.
    from agentur.ai.providers.local_embedding import build_local_embedding_provider

    try:
        return build_local_embedding_provider(name)
    except Exception as error:  # noqa: BLE001 — a missing model file must not stop the gateway
        logger.warning("local embedding provider unavailable: %s", error)
        return None
