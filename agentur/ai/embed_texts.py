"""`AiService.embed`: vectors for texts, neutralized and billed like chat calls.

No fallback to another model: vectors of different models cannot be compared (retries still
apply)."""

from __future__ import annotations

import logging
from dataclasses import dataclass
from typing import TYPE_CHECKING

from agentur.ai.attempt_failures import Failures
from agentur.ai.billing.pricing import estimate_tokens
from agentur.ai.messages import AiRequest, CallOptions, Message, Usage
from agentur.ai.model_kinds import embed_model
from agentur.ai.operation_types import OperationType
from agentur.ai.providers.base import ProviderError
from agentur.ai.retry import call_with_retries
from agentur.context import RequestContext
from agentur.observability.gen_ai import gateway_call

if TYPE_CHECKING:
    from agentur.ai.service import AiService

logger = logging.getLogger(__name__)


@dataclass(frozen=True, slots=True)
class Embeddings:
    vectors: list[list[float]]
    model: str
    dimensions: int
    cost_chf: float
    tokens: int = 0  # the input tokens billed


async def embed_texts(
    service: AiService,
    texts: list[str],
    purpose: str,
    context: RequestContext,
    *,
    workflow_id: str | None,
    model: str | None,
) -> Embeddings:
    request = AiRequest(
        operation=OperationType.embedding,
        messages=tuple(Message.user(t) for t in texts),
        options=CallOptions(model=model),
        workflow_id=workflow_id,
    )
    prepared = await service.gate.prepare(request, context)
    longest = max((estimate_tokens(t) for t in texts), default=0)
    spec = service.ranked_models(prepared.sent, prepared.config, longest)[0]
    if not texts:
        return Embeddings([], spec.id, spec.embedding_dimensions or 0, 0.0)
    sent_texts = [m.content for m in prepared.sent.messages]
    reservation = await service.billing.preflight(spec, prepared.config, context, prepared.sent)
    provider = service.registry.provider_for(spec)
    failures: Failures | None = None
    try:
        with gateway_call(spec.provider, spec.name, OperationType.embedding) as observed:
            try:
                vectors, tokens = await call_with_retries(
                    lambda: embed_model(provider, spec, sent_texts),
                    service.retry_policy,
                    provider=spec.provider,
                    sleep=service.sleep,
                )
            except ProviderError as error:
                observed.failed(error)
                failures = Failures()
                failures.failed(spec, error)
            else:
                observed.done(response_model=spec.name, input_tokens=tokens)
        if failures is not None:
            raise failures.error()
        logger.debug("embedded %d texts for %s with %s", len(texts), purpose, spec.id)
        chf = await service.billing.charge(
            spec,
            Usage(input_tokens=tokens),
            context,
            operation=OperationType.embedding,
            workflow_id=workflow_id,
            reservation=reservation,
        )
    finally:
        await service.billing.release(reservation)  # a no-op once charged
    dimensions = spec.embedding_dimensions or (len(vectors[0]) if vectors else 0)
    return Embeddings(vectors, spec.id, dimensions, chf, tokens)
