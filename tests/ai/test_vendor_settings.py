"""Each hosted vendor declares its settings beside its adapter and is listed once
(`model_catalog.VENDORS`); the settings root reads them with the environment names the README
documents, and a vendor whose key is set becomes an active provider."""

from __future__ import annotations

import pytest

from agentur.ai.model_catalog import CATALOG, VENDORS
from agentur.ai.provider_factory import build_providers
from agentur.settings import AllSettings

VENDOR_NAMES = ["openai", "anthropic", "google", "mistral", "perplexity", "tavily"]


@pytest.fixture
def clean_environment(monkeypatch: pytest.MonkeyPatch) -> pytest.MonkeyPatch:
    for name in VENDOR_NAMES:
        for suffix in ("API_KEY", "BASE_URL"):
            monkeypatch.delenv(f"AGENTUR_{name.upper()}_{suffix}", raising=False)
    monkeypatch.setenv("AGENTUR_KNOWLEDGE_LOCAL_EMBEDDING_MODEL", "none")
    monkeypatch.delenv("AGENTUR_OPENAI_COMPATIBLE_BASE_URL", raising=False)
    monkeypatch.delenv("AGENTUR_SCRIPTED", raising=False)
    return monkeypatch


def test_every_vendor_is_listed_once_with_its_models_and_settings_of_its_own() -> None:
    assert [vendor.name for vendor in VENDORS] == VENDOR_NAMES
    for vendor in VENDORS:
        fields = set(vendor.settings.model_fields)
        assert fields == {f"{vendor.name}_api_key", f"{vendor.name}_base_url"}, vendor.name
        assert CATALOG[vendor], f"{vendor.name} lists no models"


def test_a_key_in_the_environment_activates_its_vendor_at_its_base_url(
    clean_environment: pytest.MonkeyPatch,
) -> None:
    clean_environment.setenv("AGENTUR_MISTRAL_API_KEY", "key-from-mistral")
    clean_environment.setenv("AGENTUR_MISTRAL_BASE_URL", "http://127.0.0.1:9/v1")
    clean_environment.setenv("AGENTUR_TAVILY_API_KEY", "")  # empty: not configured
    settings = AllSettings.from_environment()
    providers = build_providers(settings.ai, settings.vendors, settings.openai_compatible_server)
    assert [provider.name for provider in providers] == ["mistral"]
    mistral = providers[0]
    assert mistral.transport.base_url == "http://127.0.0.1:9/v1"  # type: ignore[attr-defined]
    assert {spec.name for spec in mistral.models()} >= {"mistral-small-latest", "mistral-embed"}
    assert settings.vendors["tavily"].access().api_key is None


def test_without_vendor_settings_no_hosted_vendor_is_active(
    clean_environment: pytest.MonkeyPatch,
) -> None:
    clean_environment.setenv("AGENTUR_OPENAI_API_KEY", "ignored without the vendors' settings")
    assert build_providers(AllSettings.from_environment().ai) == []


def test_the_openai_compatible_servers_settings_come_from_its_environment_names(
    clean_environment: pytest.MonkeyPatch,
) -> None:
    # The names operators have always set: AGENTUR_OPENAI_COMPATIBLE_*.
    for name, value in {
        "BASE_URL": "http://127.0.0.1:9/v1",
        "MODELS": "qwen2.5, llama3.2",
        "API_KEY": "",  # empty: no key
        "CONTEXT_WINDOW": "8192",
        "FIRST_TOKEN_TIMEOUT_SECONDS": "42",
    }.items():
        clean_environment.setenv(f"AGENTUR_OPENAI_COMPATIBLE_{name}", value)
    settings = AllSettings.from_environment()
    server = settings.openai_compatible_server
    assert server.openai_compatible_api_key is None
    [provider] = build_providers(settings.ai, settings.vendors, server)
    assert provider.name == "openai_compatible"
    assert provider.transport.base_url == "http://127.0.0.1:9/v1"  # type: ignore[attr-defined]
    assert provider.transport.timeouts.first_token == 42  # type: ignore[attr-defined]
    assert [(spec.name, spec.context_window) for spec in provider.models()] == [
        ("qwen2.5", 8192),
        ("llama3.2", 8192),
    ]
    # Without the server's settings the gateway knows no such server.
    assert build_providers(settings.ai, settings.vendors) == []
