"""The gate every request passes before a model sees it: apply the mandate's policy
(off / neutralize / block) and keep a workflow's placeholders stable across calls."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import TypeVar

from agentur.ai.gateway_errors import ImagesBlockedError, NeutralizationBlockedError
from agentur.ai.gateway_store import GatewayStore
from agentur.ai.mandate_ai_settings import MandateAiConfig
from agentur.ai.messages import AiRequest
from agentur.ai.neutralization.gate import find_entity_types, neutralize_request
from agentur.ai.neutralization.neutralizer import Neutralizer
from agentur.ai.neutralization.placeholder_map import PlaceholderMap
from agentur.ai.neutralization.policy import effective_policy
from agentur.ai.settings import NeutralizationPolicy
from agentur.context import RequestContext

T = TypeVar("T")


@dataclass(frozen=True, slots=True)
class PreparedRequest:
    """A request after the gate: what the provider gets, the map to re-identify with."""

    config: MandateAiConfig
    sent: AiRequest
    mapping: PlaceholderMap | None


class RequestGate:
    def __init__(self, store: GatewayStore, neutralizer: Neutralizer) -> None:
        self.store = store
        self.neutralizer = neutralizer

    async def prepare(self, request: AiRequest, context: RequestContext) -> PreparedRequest:
        config = await self.store.mandate_config(context.mandate_id)
        policy = effective_policy(config.neutralization_policy, context)
        if policy is NeutralizationPolicy.off:
            return PreparedRequest(config, request, None)
        if policy is NeutralizationPolicy.block:
            images = sum(len(m.images) for m in request.messages)
            if images:
                raise ImagesBlockedError(images)
            found = find_entity_types(request, self.neutralizer, config.custom_terms)
            if found:
                raise NeutralizationBlockedError(sorted(found))
            return PreparedRequest(config, request, None)
        mapping, sent = await self.with_mapping(
            context.mandate_id,
            request.workflow_id,
            lambda m: neutralize_request(request, self.neutralizer, m, config.custom_terms),
        )
        return PreparedRequest(config, sent, mapping)

    async def with_mapping(
        self, mandate_id: str, workflow_id: str | None, work: Callable[[PlaceholderMap], T]
    ) -> tuple[PlaceholderMap, T]:
        """`work` run on the workflow's stored map (a fresh one without a workflow).

        Maps only grow, so work that adds no placeholder is done on a plain read. Work that
        adds one is done again under the store's lock on the freshly loaded map (another
        worker may have added placeholders meanwhile) and saved before the lock ends."""
        if workflow_id is None:
            mapping = PlaceholderMap()
            return mapping, work(mapping)
        mapping = await self.store.load_mapping(mandate_id, workflow_id)
        result = work(mapping)
        if not mapping.changed:
            return mapping, result
        return await self.store.update_mapping(mandate_id, workflow_id, work)

    async def neutralize_text(
        self, text: str, context: RequestContext, *, workflow_id: str | None = None
    ) -> str:
        config = await self.store.mandate_config(context.mandate_id)
        _, neutral = await self.with_mapping(
            context.mandate_id,
            workflow_id,
            lambda m: self.neutralizer.neutralize(text, m, config.custom_terms),
        )
        return neutral

    async def reidentify_text(self, text: str, context: RequestContext, *, workflow_id: str) -> str:
        mapping = await self.store.load_mapping(context.mandate_id, workflow_id)
        return mapping.reidentify(text)
