"""The gateway models a caller may use by their `provider:name` ids: chat models (they stream
or call tools) that the mandate allows and, unless it accepts unpriced models, have a price."""

from __future__ import annotations

from agentur.ai.model_spec import Capability, ModelSpec
from agentur.ai.service import AiService
from agentur.context import RequestContext


async def usable_models(ai: AiService, context: RequestContext) -> list[ModelSpec]:
    config = await ai.store.mandate_config(context.mandate_id)
    return sorted(
        (
            spec
            for spec in ai.models()
            if (spec.supports(Capability.streaming) or spec.supports(Capability.tools))
            and config.allows(spec)
            and (spec.is_priced or config.allow_unpriced)
        ),
        key=lambda spec: spec.id,
    )
