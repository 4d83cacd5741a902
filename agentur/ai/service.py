"""`AiService` — the gateway's calls: `call`, `stream`, `embed` (plus `neutralize_text`).

Every call takes the request context and runs the same steps: select ranked models for the
mandate, neutralize or block, check the budget, call the provider with retries
and fall back to the next model, price the answer in CHF, write the ledger row, and
re-identify placeholders in the answer and tool-call arguments.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Mapping, Sequence
from dataclasses import replace
from pathlib import Path

from agentur.ai.attempt_failures import Failures, log_retry
from agentur.ai.billing.charge import CallBilling, Reservation
from agentur.ai.billing.pricing import estimate_prompt_tokens, max_output_tokens
from agentur.ai.embed_texts import Embeddings, embed_texts
from agentur.ai.gateway_errors import BudgetExceededError, NoModelError
from agentur.ai.gateway_store import GatewayStore, MemoryGatewayStore
from agentur.ai.mandate_ai_settings import MandateAiConfig
from agentur.ai.messages import (
    AiRequest,
    AiResponse,
    StreamDone,
    StreamEvent,
    TextDelta,
    ToolCallDelta,
)
from agentur.ai.model_kinds import call_model
from agentur.ai.model_registry import ModelRegistry
from agentur.ai.model_spec import ModelSpec
from agentur.ai.neutralization.gate import reidentify_response
from agentur.ai.neutralization.neutralizer import Neutralizer
from agentur.ai.neutralization.request_gate import PreparedRequest, RequestGate
from agentur.ai.prepare_images import prepare_images
from agentur.ai.providers.base import ModelProvider, ProviderError
from agentur.ai.providers.openai_compatible_settings import OpenAICompatibleServerSettings
from agentur.ai.providers.vendor import VendorSettings
from agentur.ai.retry import RetryPolicy, Sleep, as_provider_error, call_with_retries
from agentur.ai.select_model import check_prompt_size, select_models
from agentur.ai.settings import AiSettings
from agentur.ai.stream_attempt import stream_attempt
from agentur.ai.stream_error import StreamError
from agentur.context import RequestContext
from agentur.observability.gen_ai import GatewayCall, gateway_call

__all__ = ["AiService", "Embeddings", "NoModelError", "StreamError"]


def limited(prepared: PreparedRequest, spec: ModelSpec, prompt_tokens: int) -> PreparedRequest:
    """The request with the output limit this model gets — always one, so a runaway
    generation stops (a server without a limit writes until its context is full)."""
    limit = max_output_tokens(spec, prepared.sent, prompt_tokens)
    options = replace(prepared.sent.options, max_output_tokens=limit)
    return replace(prepared, sent=replace(prepared.sent, options=options))


def answered(observed: GatewayCall, response: AiResponse, spec: ModelSpec) -> None:
    """The answer on the call's span: the model the provider reports (a dated snapshot, say;
    the requested name when it reports none), its response id, finish reason and usage."""
    observed.done(
        response_model=response.response_model or spec.name,
        response_id=response.response_id,
        finish_reason=response.finish_reason,
        input_tokens=response.usage.input_tokens,
        output_tokens=response.usage.output_tokens,
    )


class AiService:
    def __init__(
        self,
        providers: Sequence[ModelProvider],
        *,
        settings: AiSettings,
        store: GatewayStore | None = None,
        neutralizer: Neutralizer | None = None,
        sleep: Sleep = asyncio.sleep,
    ) -> None:
        self.settings = settings
        self.registry = ModelRegistry(providers, self.settings.model_prices)
        self.providers = self.registry.providers
        self.store: GatewayStore = store or MemoryGatewayStore(self.settings)
        self.neutralizer = neutralizer or Neutralizer()
        self.retry_policy = RetryPolicy(
            max_retries=self.settings.max_retries,
            base_delay_seconds=self.settings.retry_base_delay_seconds,
            max_delay_seconds=self.settings.retry_max_delay_seconds,
        )
        self.sleep = sleep
        self.gate = RequestGate(self.store, self.neutralizer)
        self.billing = CallBilling(self.store, self.settings)

    @classmethod
    def from_settings(
        cls,
        settings: AiSettings,
        database: object,
        data_dir: Path,
        vendors: Mapping[str, VendorSettings] | None = None,
        server: OpenAICompatibleServerSettings | None = None,
    ) -> AiService:
        """The production wiring: providers from settings (`vendors`: each hosted vendor's, by
        name; `server`: the OpenAI-compatible server's), state in the shared database."""
        from agentur.ai.database_gateway_store import DatabaseGatewayStore
        from agentur.ai.neutralization.mapping_cipher import MappingCipher, load_or_create_key
        from agentur.ai.provider_factory import build_providers

        key = settings.neutralization_key or load_or_create_key(data_dir / "neutralization.key")
        store = DatabaseGatewayStore(database, settings, MappingCipher(key))  # type: ignore[arg-type]
        return cls(build_providers(settings, vendors, server), settings=settings, store=store)

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
        return self.ranked_models(request, config, prompt_tokens)

    def ranked_models(
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

    async def neutralize_text(
        self, text: str, context: RequestContext, *, workflow_id: str | None = None
    ) -> str:
        """`text` with personal data replaced by placeholders (for data at rest, e.g. files
        marked `neutralize`). Uses the mandate's custom terms and, with a workflow, its stable
        placeholders. Needs no provider."""
        return await self.gate.neutralize_text(text, context, workflow_id=workflow_id)

    async def reidentify_text(self, text: str, context: RequestContext, *, workflow_id: str) -> str:
        """Placeholders of `workflow_id` in `text` replaced by the original values."""
        return await self.gate.reidentify_text(text, context, workflow_id=workflow_id)

    # -------------------------------------------------------------------- calls

    async def _gated(
        self, request: AiRequest, context: RequestContext
    ) -> tuple[PreparedRequest, int, list[ModelSpec]]:
        """The request after the gate, its estimated prompt tokens and the ranked models."""
        check_prompt_size(self.registry, request, estimate_prompt_tokens(request))
        prepared = await self.gate.prepare(request, context)
        prepared = replace(prepared, sent=await prepare_images(prepared.sent, self.settings))
        prompt_tokens = estimate_prompt_tokens(prepared.sent)
        return (
            prepared,
            prompt_tokens,
            self.ranked_models(prepared.sent, prepared.config, prompt_tokens),
        )

    async def _attempt(
        self,
        spec: ModelSpec,
        prepared: PreparedRequest,
        context: RequestContext,
        prompt_tokens: int,
        failures: Failures,
    ) -> tuple[PreparedRequest, Reservation] | None:
        """The request as this candidate gets it (with its output limit) and its worst case
        held against the mandate's budget, or None when it is skipped: its server timed out on
        this prompt before, or the mandate cannot pay (the refusal is kept in `failures` for
        the final error; checked per candidate, only when it is reached)."""
        if failures.gave_up_on(spec):
            return None
        attempt = limited(prepared, spec, prompt_tokens)
        try:
            reservation = await self.billing.preflight(spec, attempt.config, context, attempt.sent)
        except BudgetExceededError as refusal:
            failures.refused(refusal)
            return None
        return attempt, reservation

    async def _finish(
        self,
        response: AiResponse,
        spec: ModelSpec,
        prepared: PreparedRequest,
        context: RequestContext,
        reservation: Reservation,
    ) -> AiResponse:
        chf = await self.billing.charge(
            spec,
            response.usage,
            context,
            operation=prepared.sent.operation,
            workflow_id=prepared.sent.workflow_id,
            reservation=reservation,
        )
        response = replace(response, cost_chf=chf)
        if prepared.mapping is not None:
            response = reidentify_response(response, prepared.mapping)
        return response

    async def call(self, request: AiRequest, context: RequestContext) -> AiResponse:
        failures = Failures()
        prepared, prompt_tokens, candidates = await self._gated(request, context)
        for spec in candidates:
            held = await self._attempt(spec, prepared, context, prompt_tokens, failures)
            if held is None:
                continue
            attempt, reservation = held
            provider = self.registry.provider_for(spec)
            try:
                with gateway_call(spec.provider, spec.name, str(request.operation)) as observed:
                    try:
                        response = await call_with_retries(
                            lambda p=provider, s=spec, a=attempt: call_model(p, s, a.sent),
                            self.retry_policy,
                            provider=spec.provider,
                            model=spec.name,
                            sleep=self.sleep,
                            on_retry=lambda e, n, s=spec: log_retry(s, e, n),
                        )
                    except ProviderError as error:
                        observed.failed(error)
                        failures.failed(spec, error)
                        continue
                    answered(observed, response, spec)
                    return await self._finish(response, spec, prepared, context, reservation)
            finally:
                await self.billing.release(reservation)  # a no-op once charged
        raise failures.error()

    async def stream(
        self, request: AiRequest, context: RequestContext
    ) -> AsyncIterator[StreamEvent | StreamError]:
        """Text and tool-call deltas, then `StreamDone`. Failures before anything reached the
        caller are retried / fall back like `call`; after that the stream ends with a
        `StreamError` event instead of silently restarting."""
        failures = Failures()
        prepared, prompt_tokens, candidates = await self._gated(request, context)
        for spec in candidates:
            held = await self._attempt(spec, prepared, context, prompt_tokens, failures)
            if held is None:
                continue
            attempt, reservation = held
            with gateway_call(spec.provider, spec.name, str(request.operation)) as observed:
                try:
                    tries = 0
                    while True:
                        emitted = False
                        try:
                            async for event in stream_attempt(
                                self.registry.provider_for(spec),
                                spec,
                                attempt,
                                finish=lambda r, s=spec, h=reservation: self._finish(
                                    r, s, prepared, context, h
                                ),
                                loop_window=self.settings.stop_repeated_output_chars,
                            ):
                                if isinstance(event, TextDelta | ToolCallDelta):
                                    emitted = True
                                elif isinstance(event, StreamDone):
                                    answered(observed, event.response, spec)
                                yield event
                            return
                        except Exception as raw:
                            error = as_provider_error(raw, spec.provider, spec.name)
                            if error is None:
                                raise
                            observed.failed(error)
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
                                await self.sleep(self.retry_policy.delay(tries, error))
                                continue
                            failures.failed(spec, error)
                            break
                finally:
                    await self.billing.release(reservation)  # a no-op once charged
        raise failures.error()

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
        return await embed_texts(
            self, texts, purpose, context, workflow_id=workflow_id, model=model
        )
