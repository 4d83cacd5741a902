"""The registry of active models: every configured provider's models with prices and ranks."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from agentur.ai.model_catalog import UNKNOWN_QUALITY, UNKNOWN_SPEED, catalog_entry, with_prices
from agentur.ai.model_spec import ModelSpec
from agentur.ai.providers.base import ModelProvider
from agentur.ai.settings import PriceOverride

# Providers whose models run on the operator's hardware: no per-token price. The
# on-device embedder (`providers/local_embedding.py`) prices its model at 0 itself.
LOCAL_PROVIDERS = frozenset({"openai_compatible", "scripted"})


@dataclass(frozen=True, slots=True)
class RegisteredModel:
    spec: ModelSpec
    quality: int
    speed: int


class ModelRegistry:
    def __init__(
        self,
        providers: Iterable[ModelProvider],
        price_overrides: dict[str, PriceOverride] | None = None,
    ) -> None:
        self.providers: dict[str, ModelProvider] = {}
        self._models: dict[str, RegisteredModel] = {}
        overrides = price_overrides or {}
        for provider in providers:
            self.providers[provider.name] = provider
            for spec in provider.models():
                priced = with_prices(spec, overrides, free=provider.name in LOCAL_PROVIDERS)
                entry = catalog_entry(spec.provider, spec.name)
                self._models[priced.id] = RegisteredModel(
                    priced,
                    entry.quality if entry else UNKNOWN_QUALITY,
                    entry.speed if entry else UNKNOWN_SPEED,
                )

    def __len__(self) -> int:
        return len(self._models)

    def models(self) -> list[ModelSpec]:
        return [entry.spec for entry in self._models.values()]

    def entries(self) -> list[RegisteredModel]:
        return list(self._models.values())

    def get(self, model_id: str) -> RegisteredModel | None:
        return self._models.get(model_id)

    def provider_for(self, spec: ModelSpec) -> ModelProvider:
        return self.providers[spec.provider]
