"""`AiService` — the gateway's calls: `call`, `stream`, `embed` (plus `neutralize_text`).

Every call takes the request context and runs the same steps: select ranked models for the
mandate (G2), neutralize or block (G4), check the budget (G5), call the provider with retries
and fall back to the next model (G6), price the answer in CHF, write the ledger row, and
re-identify placeholders in the answer and tool-call arguments.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import AsyncIterator, Sequence
from dataclasses import dataclass, replace
from pathlib import Path

from agentur.ai.attempt_failures import Failures, log_retry
from agentur.ai.billing.ledger import LedgerRecord
from agentur.ai.billing.preflight import check_budget
from agentur.ai.billing.pricing import (
    cost_usd,
    estimate_prompt_tokens,
    estimate_tokens,
    max_output_tokens,
)
from agentur.ai.gateway_errors import (
    BudgetExceededError,
    NeutralizationBlockedError,
    NoModelError,
)
from agentur.ai.gateway_store import GatewayStore, MemoryGatewayStore
from agentur.ai.mandate_ai_settings import MandateAiConfig
from agentur.ai.messages import (
    AiRequest,
    AiResponse,
    Message,
    StreamDone,
    StreamEvent,
    TextDelta,
    ToolCallDelta,
    Usage,
)
from agentur.ai.model_registry import ModelRegistry
from agentur.ai.model_spec import ModelSpec
from agentur.ai.neutralization.gate import (
    StreamReidentifier,
    find_entity_types,
    neutralize_request,
    reidentify_response,
)
from agentur.ai.neutralization.neutralizer import Neutralizer
from agentur.ai.neutralization.placeholder_map import PlaceholderMap
from agentur.ai.neutralization.policy import effective_policy
from agentur.ai.operation_types import OperationType
from agentur.ai.providers.base import ModelProvider, ProviderError
from agentur.ai.retry import RetryPolicy, Sleep, as_provider_error, call_with_retries
from agentur.ai.select_model import select_models
from agentur.ai.settings import AiSettings, NeutralizationPolicy
from agentur.ai.stream_error import StreamError
from agentur.context import RequestContext, utc_now

__all__ = ["AiService", "Embeddings", "NoModelError", "StreamError"]

logger = logging.getLogger(__name__)


@dataclass(frozen=True, slots=True)
class Embeddings:
    vectors: list[list[float]]
    model: str
    dimensions: int
    cost_chf: float


@dataclass(frozen=True, slots=True)
class _Prepared:
    """A request after the gate: what the provider gets, the map to re-identify with."""

    config: MandateAiConfig
    sent: AiRequest
    mapping: PlaceholderMap | None


class AiService:
    def __init__(
        self,
        providers: Sequence[ModelProvider],
        *,
        settings: AiSettings | None = None,
        store: GatewayStore | None = None,
        neutralizer: Neutralizer | None = None,
        sleep: Sleep = asyncio.sleep,
    ) -> None:
        self.settings = settings or AiSettings()
        self.registry = ModelRegistry(providers, self.settings.model_prices)
        self.providers = self.registry.providers
        self.store: GatewayStore = store or MemoryGatewayStore(self.settings)
        self.neutralizer = neutralizer or Neutralizer()
        self.retry_policy = RetryPolicy(
            max_retries=self.settings.max_retries,
            base_delay_seconds=self.settings.retry_base_delay_seconds,
            max_delay_seconds=self.settings.retry_max_delay_seconds,
            timeout_seconds=self.settings.request_timeout_seconds,
        )
        self._sleep = sleep
        # Serializes load→neutralize→save of one workflow's map within this worker.
        self._mapping_locks: dict[tuple[str, str], asyncio.Lock] = {}

    @classmethod
    def from_settings(cls, settings: AiSettings, database: object, data_dir: Path) -> AiService:
        """The production wiring: providers from settings, state in the shared database."""
        from agentur.ai.database_gateway_store import DatabaseGatewayStore
        from agentur.ai.neutralization.mapping_cipher import MappingCipher, load_or_create_key
        from agentur.ai.provider_factory import build_providers

        key = settings.neutralization_key or load_or_create_key(data_dir / "neutralization.key")
        store = DatabaseGatewayStore(database, settings, MappingCipher(key))  # type: ignore[arg-type]
        return cls(build_providers(settings), settings=settings, store=store)

    async def aclose(self) -> None:
        """Closes the providers' HTTP clients."""
        for provider in self.providers.values():
            closer = getattr(provider, "aclose", None)
            if closer is not None:
                await closer()

    # ----------------------------------------------------------------- registry

    def models(self) -> list[ModelSpec]:
        return self.registry.models()

    @property
    def usd_to_chf(self) -> float:
        return self.settings.usd_to_chf

    async def candidates(
        self, request: AiRequest, context: RequestContext, *, prompt_tokens: int | None = None
    ) -> list[ModelSpec]:
        """The ranked models this request may use for this mandate (first = chosen)."""
        config = await self.store.mandate_config(context.mandate_id)
        return self._candidates(request, config, prompt_tokens)

    def _candidates(
        self, request: AiRequest, config: MandateAiConfig, prompt_tokens: int | None
    ) -> list[ModelSpec]:
        ranked = select_models(
            self.registry,
            request,
            config,
            prompt_tokens=estimate_prompt_tokens(request)
            if prompt_tokens is None
            else prompt_tokens,
            ranking=self.settings.model_ranking,
            default_model=self.settings.default_model,
        )
        return ranked[: 1 + self.settings.max_fallbacks]

    # --------------------------------------------------------------------- gate

    async def _prepare(self, request: AiRequest, context: RequestContext) -> _Prepared:
        config = await self.store.mandate_config(context.mandate_id)
        policy = effective_policy(config.neutralization_policy, context)
        if policy is NeutralizationPolicy.off:
            return _Prepared(config, request, None)
        if policy is NeutralizationPolicy.block:
            found = find_entity_types(request, self.neutralizer, config.custom_terms)
            if found:
                raise NeutralizationBlockedError(sorted(found))
            return _Prepared(config, request, None)
        mapping, sent = await self._with_mapping(
            context.mandate_id,
            request.workflow_id,
            lambda m: neutralize_request(request, self.neutralizer, m, config.custom_terms),
        )
        return _Prepared(config, sent, mapping)

    async def _with_mapping(self, mandate_id: str, workflow_id: str | None, work):  # noqa: ANN001
        if workflow_id is None:
            mapping = PlaceholderMap()
            return mapping, work(mapping)
        lock = self._mapping_locks.setdefault((mandate_id, workflow_id), asyncio.Lock())
        async with lock:
            mapping = await self.store.load_mapping(mandate_id, workflow_id)
            result = work(mapping)
            if mapping.changed:
                await self.store.save_mapping(mandate_id, workflow_id, mapping)
                mapping.changed = False
        return mapping, result

    async def neutralize_text(
        self, text: str, context: RequestContext, *, workflow_id: str | None = None
    ) -> str:
        """`text` with personal data replaced by placeholders (for data at rest, e.g. files
        marked `neutralize`). Uses the mandate's custom terms and, with a workflow, its stable
        placeholders. Needs no provider."""
        config = await self.store.mandate_config(context.mandate_id)
        _, neutral = await self._with_mapping(
            context.mandate_id,
            workflow_id,
            lambda m: self.neutralizer.neutralize(text, m, config.custom_terms),
        )
        return neutral

    async def reidentify_text(self, text: str, context: RequestContext, *, workflow_id: str) -> str:
        """Placeholders of `workflow_id` in `text` replaced by the original values."""
        mapping = await self.store.load_mapping(context.mandate_id, workflow_id)
        return mapping.reidentify(text)

    # ------------------------------------------------------------------ billing

    async def _preflight(
        self,
        spec: ModelSpec,
        config: MandateAiConfig,
        context: RequestContext,
        *,
        input_tokens: int,
        output_tokens: int,
    ) -> None:
        if config.balance_chf is None and config.monthly_limit_chf is None:
            return
        worst = cost_usd(spec, Usage(input_tokens, output_tokens)) * self.usd_to_chf
        spent = 0.0
        if config.monthly_limit_chf is not None:
            spent = await self.store.spent_this_month(context.mandate_id, utc_now())
        check_budget(config, worst_case_chf=worst, spent_this_month_chf=spent, model=spec.id)

    async def _bill(
        self,
        spec: ModelSpec,
        usage: Usage,
        context: RequestContext,
        *,
        operation: str,
        workflow_id: str | None,
    ) -> float:
        usd = cost_usd(spec, usage)
        chf = usd * self.usd_to_chf
        record = LedgerRecord(
            mandate_id=context.mandate_id,
            user_id=context.user_id,
            workflow_id=workflow_id,
            operation=str(operation),
            model=spec.id,
            provider=spec.provider,
            input_tokens=usage.input_tokens,
            output_tokens=usage.output_tokens,
            cached_tokens=usage.cached_tokens,
            cost_usd=usd,
            cost_chf=chf,
            usd_to_chf=self.usd_to_chf,
        )
        await self.store.record(record, utc_now())
        return chf

    async def _finish(
        self, response: AiResponse, spec: ModelSpec, prepared: _Prepared, context: RequestContext
    ) -> AiResponse:
        chf = await self._bill(
            spec,
            response.usage,
            context,
            operation=prepared.sent.operation,
            workflow_id=prepared.sent.workflow_id,
        )
        response = replace(response, cost_chf=chf)
        if prepared.mapping is not None:
            response = reidentify_response(response, prepared.mapping)
        return response

    # -------------------------------------------------------------------- calls

    async def call(self, request: AiRequest, context: RequestContext) -> AiResponse:
        prepared = await self._prepare(request, context)
        prompt_tokens = estimate_prompt_tokens(prepared.sent)
        candidates = self._candidates(prepared.sent, prepared.config, prompt_tokens)
        failures = Failures()
        for spec in candidates:
            try:
                await self._preflight(
                    spec,
                    prepared.config,
                    context,
                    input_tokens=prompt_tokens,
                    output_tokens=max_output_tokens(spec, request),
                )
            except BudgetExceededError as refusal:
                failures.refused(refusal)
                continue
            provider = self.registry.provider_for(spec)
            try:
                response = await call_with_retries(
                    lambda p=provider, s=spec: p.complete(s, prepared.sent),
                    self.retry_policy,
                    provider=spec.provider,
                    sleep=self._sleep,
                    on_retry=lambda e, n, s=spec: log_retry(s, e, n),
                )
            except ProviderError as error:
                failures.failed(spec, error)
                continue
            return await self._finish(response, spec, prepared, context)
        raise failures.error()

    async def stream(
        self, request: AiRequest, context: RequestContext
    ) -> AsyncIterator[StreamEvent | StreamError]:
        """Text and tool-call deltas, then `StreamDone`. Failures before anything reached the
        caller are retried / fall back like `call`; after that the stream ends with a
        `StreamError` event instead of silently restarting."""
        prepared = await self._prepare(request, context)
        prompt_tokens = estimate_prompt_tokens(prepared.sent)
        candidates = self._candidates(prepared.sent, prepared.config, prompt_tokens)
        failures = Failures()
        for spec in candidates:
            try:
                await self._preflight(
                    spec,
                    prepared.config,
                    context,
                    input_tokens=prompt_tokens,
                    output_tokens=max_output_tokens(spec, request),
                )
            except BudgetExceededError as refusal:
                failures.refused(refusal)
                continue
            tries = 0
            while True:
                emitted = False
                try:
                    async for event in self._stream_once(spec, prepared, context):
                        if isinstance(event, TextDelta | ToolCallDelta):
                            emitted = True
                        yield event
                    return
                except Exception as raw:
                    error = as_provider_error(raw, spec.provider)
                    if error is None:
                        raise
                    if emitted:
                        yield StreamError(
                            f"the stream from {spec.id} broke after text was sent: {error}",
                            model=spec.id,
                            provider=spec.provider,
                            status_code=error.status_code,
                            retryable=error.retryable,
                        )
                        return
                    tries += 1
                    if error.retryable and tries <= self.retry_policy.max_retries:
                        log_retry(spec, error, tries)
                        await self._sleep(self.retry_policy.delay(tries, error))
                        continue
                    failures.failed(spec, error)
                    break
        raise failures.error()

    async def _stream_once(
        self, spec: ModelSpec, prepared: _Prepared, context: RequestContext
    ) -> AsyncIterator[StreamEvent]:
        provider = self.registry.provider_for(spec)
        mapping = prepared.mapping
        text = StreamReidentifier(mapping) if mapping is not None else None
        arguments: dict[int, StreamReidentifier] = {}
        events = provider.stream(spec, prepared.sent).__aiter__()
        idle = self.settings.stream_idle_timeout_seconds
        try:
            while True:
                try:
                    async with asyncio.timeout(idle):
                        event = await events.__anext__()
                except StopAsyncIteration:
                    raise ProviderError(
                        "the stream ended without a final response",
                        provider=spec.provider,
                        retryable=True,
                    ) from None
                if isinstance(event, TextDelta):
                    piece = text.feed(event.text) if text is not None else event.text
                    if piece:
                        yield TextDelta(piece)
                elif isinstance(event, ToolCallDelta):
                    if mapping is not None:
                        reid = arguments.setdefault(
                            event.index, StreamReidentifier(mapping, json_text=True)
                        )
                        event = replace(event, arguments_delta=reid.feed(event.arguments_delta))
                    yield event
                elif isinstance(event, StreamDone):
                    if text is not None and (rest := text.flush()):
                        yield TextDelta(rest)
                    yield StreamDone(await self._finish(event.response, spec, prepared, context))
                    return
        finally:
            closer = getattr(events, "aclose", None)
            if closer is not None:
                await closer()

    async def embed(
        self,
        texts: list[str],
        purpose: str,
        context: RequestContext,
        *,
        workflow_id: str | None = None,
        model: str | None = None,
    ) -> Embeddings:
        """Vectors for `texts`, neutralized and billed like chat calls. No fallback to another
        model: vectors of different models cannot be compared (retries still apply).
        `purpose` labels the call in logs (e.g. "index", "query")."""
        from agentur.ai.messages import CallOptions

        request = AiRequest(
            operation=OperationType.embedding,
            messages=tuple(Message.user(t) for t in texts),
            options=CallOptions(model=model),
            workflow_id=workflow_id,
        )
        prepared = await self._prepare(request, context)
        longest = max((estimate_tokens(t) for t in texts), default=0)
        spec = self._candidates(prepared.sent, prepared.config, longest)[0]
        if not texts:
            return Embeddings([], spec.id, spec.embedding_dimensions or 0, 0.0)
        sent_texts = [m.content for m in prepared.sent.messages]
        total = sum(estimate_tokens(t) for t in sent_texts)
        await self._preflight(spec, prepared.config, context, input_tokens=total, output_tokens=0)
        provider = self.registry.provider_for(spec)
        try:
            vectors, tokens = await call_with_retries(
                lambda: provider.embed(spec, sent_texts),
                self.retry_policy,
                provider=spec.provider,
                sleep=self._sleep,
            )
        except ProviderError as error:
            failures = Failures()
            failures.failed(spec, error)
            raise failures.error() from error
        logger.debug("embedded %d texts for %s with %s", len(texts), purpose, spec.id)
        chf = await self._bill(
            spec,
            Usage(input_tokens=tokens),
            context,
            operation=OperationType.embedding,
            workflow_id=workflow_id,
        )
        dimensions = spec.embedding_dimensions or (len(vectors[0]) if vectors else 0)
        return Embeddings(vectors, spec.id, dimensions, chf)
