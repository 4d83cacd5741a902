"""The small interface every provider adapter implements.

Adapters speak one wire format and report raw results; the gateway (`AiService`) adds
neutralization, billing, retries, fallback and cost. Adapters raise `ProviderError` with
`retryable` set for 429/5xx/timeouts so the gateway can decide.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Protocol, runtime_checkable

from agentur.ai.messages import AiRequest, AiResponse, StreamEvent
from agentur.ai.model_spec import ModelSpec


class ProviderError(Exception):
    def __init__(
        self,
        message: str,
        *,
        provider: str,
        status_code: int | None = None,
        retryable: bool = False,
        retry_after_seconds: float | None = None,
    ) -> None:
        super().__init__(message)
        self.provider = provider
        self.status_code = status_code
        self.retryable = retryable
        self.retry_after_seconds = retry_after_seconds


@runtime_checkable
class ModelProvider(Protocol):
    name: str

    def models(self) -> list[ModelSpec]:
        """The models this provider offers, as configured."""
        ...

    async def complete(self, model: ModelSpec, request: AiRequest) -> AiResponse:
        """One chat call. `cost_chf` is left 0; the gateway prices it."""
        ...

    def stream(self, model: ModelSpec, request: AiRequest) -> AsyncIterator[StreamEvent]:
        """Text and tool-call deltas, then one StreamDone with the whole response."""
        ...

    async def embed(self, model: ModelSpec, texts: list[str]) -> tuple[list[list[float]], int]:
        """Vectors for `texts` and the input tokens billed."""
        ...
