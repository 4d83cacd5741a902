"""Builds the active providers from `AiSettings`, the vendors' settings and the OpenAI-compatible
server's: a provider is active iff it is configured.

Vendor adapters (`model_catalog.VENDORS`) get the catalog's models; an OpenAI-compatible server
gets the names from `AGENTUR_OPENAI_COMPATIBLE_MODELS`, or asks the server (`GET /models`) when
that is empty. The scripted provider is only active when `AGENTUR_SCRIPTED=1`."""

from __future__ import annotations

import logging
from collections.abc import Mapping

import httpx

from agentur.ai.model_catalog import VENDORS, catalog_specs
from agentur.ai.model_spec import Capability, ModelSpec
from agentur.ai.providers.base import ModelProvider
from agentur.ai.providers.http_transport import Timeouts
from agentur.ai.providers.openai_compatible_settings import OpenAICompatibleServerSettings
from agentur.ai.providers.vendor import VendorSettings
from agentur.ai.settings import AiSettings

logger = logging.getLogger(__name__)

DISCOVERY_TIMEOUT_SECONDS = 5.0


# The OpenAI-compatible server has settings of its own (more than a key and URL).
OPENAI_COMPATIBLE = "openai_compatible"


def _guess_capabilities(name: str) -> frozenset[Capability]:
    if "embed" in name.lower():
        return frozenset({Capability.embeddings})
    return frozenset({Capability.tools, Capability.streaming, Capability.structured_output})


def openai_compatible_specs(
    settings: OpenAICompatibleServerSettings, names: list[str]
) -> list[ModelSpec]:
    return [
        ModelSpec(
            provider=OPENAI_COMPATIBLE,
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


def provider_timeouts(settings: AiSettings) -> Timeouts:
    """The limits every hosted provider shares (the OpenAI-compatible server has its own: a
    local server may read a prompt for minutes before it answers)."""
    return Timeouts(
        settings.connect_timeout_seconds,
        settings.first_token_timeout_seconds,
        settings.stream_idle_timeout_seconds,
        settings.request_timeout_seconds,
        "AGENTUR_",
    )


def build_providers(
    settings: AiSettings,
    vendors: Mapping[str, VendorSettings] | None = None,
    server: OpenAICompatibleServerSettings | None = None,
) -> list[ModelProvider]:
    """The configured providers: each hosted vendor whose key `vendors` (its settings by
    vendor name) holds, the OpenAI-compatible `server` when its base URL is set, the on-device
    embedder, the scripted."""
    providers: list[ModelProvider] = []
    timeouts = provider_timeouts(settings)
    for vendor in VENDORS:
        vendor_settings = (vendors or {}).get(vendor.name)
        access = vendor_settings.access() if vendor_settings else None
        if access is None or not access.api_key:
            continue
        providers.append(
            vendor.adapter(
                models=catalog_specs(vendor.name),
                api_key=access.api_key,
                base_url=access.base_url,
                timeouts=timeouts,
            )
        )
    if server is not None and server.openai_compatible_base_url:
        from agentur.ai.providers.openai_compatible import OpenAICompatibleProvider

        names = server.model_names or discover_model_names(
            server.openai_compatible_base_url, server.openai_compatible_api_key
        )
        if names:
            providers.append(
                OpenAICompatibleProvider(
                    models=openai_compatible_specs(server, names),
                    api_key=server.openai_compatible_api_key,
                    base_url=server.openai_compatible_base_url,
                    timeouts=server.timeouts(settings.connect_timeout_seconds),
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
