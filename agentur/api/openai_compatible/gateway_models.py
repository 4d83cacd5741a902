"""The gateway models a caller may use by their `provider:name` ids: chat models (they stream
or call tools) and embedding models that the mandate allows and, unless it accepts unpriced
models, have a price."""

from __future__ import annotations

from agentur.ai.model_spec import Capability, ModelSpec
from agentur.ai.providers.base import native_parameters
from agentur.ai.service import AiService
from agentur.context import RequestContext


def is_chat(spec: ModelSpec) -> bool:
    return spec.supports(Capability.streaming) or spec.supports(Capability.tools)


def is_embedding(spec: ModelSpec) -> bool:
    return spec.supports(Capability.embeddings)


async def usable_models(ai: AiService, context: RequestContext) -> list[ModelSpec]:
    config = await ai.store.mandate_config(context.mandate_id)
    return sorted(
        (
            spec
            for spec in ai.models()
            if (is_chat(spec) or is_embedding(spec))
            and config.allows(spec)
            and (spec.is_priced or config.allow_unpriced)
        ),
        key=lambda spec: spec.id,
    )


async def usable_model(ai: AiService, context: RequestContext, model_id: str) -> ModelSpec | None:
    return next((spec for spec in await usable_models(ai, context) if spec.id == model_id), None)


def native(ai: AiService, spec: ModelSpec) -> frozenset[str]:
    """The optional parameters the model's provider passes on (see `parameters`)."""
    return native_parameters(ai.registry.provider_for(spec))
