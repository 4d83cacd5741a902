"""Gateway fixtures: an `AiService` over the test database (both backends) with scripted
providers, a sleep that records backoff delays instead of waiting, and mandate settings."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from agentur.ai.database_gateway_store import DatabaseGatewayStore
from agentur.ai.mandate_ai_settings import update_mandate_ai_settings
from agentur.ai.messages import AiRequest, Message
from agentur.ai.model_spec import Capability, ModelSpec
from agentur.ai.neutralization.mapping_cipher import MappingCipher
from agentur.ai.operation_types import OperationType
from agentur.ai.providers.base import ModelProvider
from agentur.ai.service import AiService
from agentur.ai.settings import AiSettings
from agentur.runtime import Runtime

CHAT_CAPS = frozenset(Capability) - {Capability.embeddings, Capability.web_search}


def spec(
    provider: str,
    name: str = "m",
    *,
    price: tuple[float | None, float | None] = (1.0, 2.0),
    caps: frozenset[Capability] = CHAT_CAPS,
    context_window: int = 128_000,
    max_output_tokens: int = 1_000,
) -> ModelSpec:
    return ModelSpec(
        provider=provider,
        name=name,
        capabilities=caps,
        context_window=context_window,
        max_output_tokens=max_output_tokens,
        input_price_usd_per_mtok=price[0],
        output_price_usd_per_mtok=price[1],
    )


def ask(text: str, *, workflow_id: str | None = None, **kwargs: Any) -> AiRequest:
    return AiRequest(
        operation=OperationType.agent,
        messages=(Message.user(text),),
        workflow_id=workflow_id,
        **kwargs,
    )


class Sleeps(list):
    async def __call__(self, seconds: float) -> None:
        self.append(seconds)


@pytest.fixture
def sleeps() -> Sleeps:
    return Sleeps()


GatewayFactory = Callable[..., AiService]


@pytest.fixture
def gateway(runtime: Runtime, sleeps: Sleeps) -> GatewayFactory:
    """`gateway(*providers, **settings)` → an AiService persisting into the test database."""

    def build(*providers: ModelProvider, **settings: Any) -> AiService:
        ai_settings = AiSettings(**{"usd_to_chf": 0.9, **settings})
        store = DatabaseGatewayStore(runtime.database, ai_settings, MappingCipher.generated())
        return AiService(list(providers), settings=ai_settings, store=store, sleep=sleeps)

    return build


@pytest.fixture
def configure_mandate(runtime: Runtime) -> Callable[..., Any]:
    async def configure(mandate_id: str, **changes: Any) -> None:
        async with runtime.database.transaction() as session:
            await update_mandate_ai_settings(session, mandate_id, changes)

    return configure
