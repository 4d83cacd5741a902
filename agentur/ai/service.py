"""`AiService` — the gateway's three calls: `call`, `stream`, `embed`.

Every call takes the request context: tenant restrictions, neutralization policy and billing
all hang off it. This first version selects a model and calls its provider; the gateway issue
adds the neutralization gate, billing, retries and fallback behind the same signatures.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Sequence
from dataclasses import dataclass, replace

from agentur.ai.messages import AiRequest, AiResponse, StreamDone, StreamEvent
from agentur.ai.model_spec import Capability, ModelSpec
from agentur.ai.operation_types import OperationType
from agentur.ai.providers.base import ModelProvider
from agentur.context import RequestContext
from agentur.errors import AgenturError


class NoModelError(AgenturError):
    status_code = 503
    title = "No model available"


@dataclass(frozen=True, slots=True)
class Embeddings:
    vectors: list[list[float]]
    model: str
    dimensions: int
    cost_chf: float


class AiService:
    def __init__(self, providers: Sequence[ModelProvider]) -> None:
        self.providers = {provider.name: provider for provider in providers}

    def models(self) -> list[ModelSpec]:
        return [spec for provider in self.providers.values() for spec in provider.models()]

    def select_model(self, request: AiRequest, context: RequestContext) -> ModelSpec:
        wanted = Capability.embeddings if request.operation == OperationType.embedding else None
        for spec in self.models():
            if request.options.model and spec.id != request.options.model:
                continue
            if wanted and not spec.supports(wanted):
                continue
            if not wanted and spec.supports(Capability.embeddings) and len(spec.capabilities) == 1:
                continue
            if request.tools and not spec.supports(Capability.tools):
                continue
            return spec
        raise NoModelError(f"no configured model fits a {request.operation} request")

    async def call(self, request: AiRequest, context: RequestContext) -> AiResponse:
        spec = self.select_model(request, context)
        return await self.providers[spec.provider].complete(spec, request)

    async def stream(
        self, request: AiRequest, context: RequestContext
    ) -> AsyncIterator[StreamEvent]:
        spec = self.select_model(request, context)
        async for event in self.providers[spec.provider].stream(spec, request):
            if isinstance(event, StreamDone):
                event = StreamDone(replace(event.response))
            yield event

    async def embed(self, texts: list[str], purpose: str, context: RequestContext) -> Embeddings:
        request = AiRequest(operation=OperationType.embedding, messages=())
        spec = self.select_model(request, context)
        vectors, _ = await self.providers[spec.provider].embed(spec, texts)
        return Embeddings(vectors, spec.id, spec.embedding_dimensions or len(vectors[0]), 0.0)
