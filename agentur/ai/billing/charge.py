"""The gateway's billing steps around a provider call: the preflight holds the call's worst
case against the mandate's balance and monthly limit (atomically, across workers), the charge
writes one ledger row with the real cost and settles the hold, a failed call releases it.

The worst case is an upper bound (`pricing.prompt_token_bound` for the prompt, the output
limit sent with the call for the answer), so a provider that counts as it documents never
bills more than the hold. One that bills more anyway is charged what it reported — the
ledger stays the provider's bill — and the excess is logged; a balance this takes below zero
refuses every further hold until it is topped up (a monthly limit: until the month turns)."""

from __future__ import annotations

import logging
from dataclasses import dataclass

from agentur.ai.billing.holder import current_holder
from agentur.ai.billing.ledger import LedgerRecord
from agentur.ai.billing.pricing import cost_usd, hold_usd, prompt_token_bound
from agentur.ai.gateway_store import GatewayStore
from agentur.ai.mandate_ai_settings import MandateAiConfig
from agentur.ai.messages import AiRequest, Usage
from agentur.ai.model_spec import ModelSpec
from agentur.ai.settings import AiSettings
from agentur.context import RequestContext, utc_now
from agentur.observability.gen_ai import charged

logger = logging.getLogger(__name__)


@dataclass
class Reservation:
    """The hold of one call; `id` None when the mandate has neither balance nor limit."""

    id: str | None = None
    open: bool = True
    amount_chf: float = 0.0


@dataclass(frozen=True, slots=True)
class CallBilling:
    store: GatewayStore
    settings: AiSettings

    async def preflight(
        self,
        spec: ModelSpec,
        config: MandateAiConfig,
        context: RequestContext,
        request: AiRequest,
    ) -> Reservation:
        """Holds the worst case of `request` as sent (its output limit set; none for
        embeddings); raises `BudgetExceededError` when it does not fit."""
        if config.balance_chf is None and config.monthly_limit_chf is None:
            return Reservation()
        output_limit = request.options.max_output_tokens or 0
        worst = hold_usd(spec, prompt_token_bound(request), output_limit)
        worst *= self.settings.usd_to_chf
        held = await self.store.reserve(
            context.mandate_id, worst, spec.id, utc_now(), holder=current_holder()
        )
        return Reservation(held, amount_chf=worst)

    async def release(self, reservation: Reservation) -> None:
        """For a call that will not be charged (it failed or was cancelled)."""
        if reservation.open and reservation.id is not None:
            reservation.open = False
            await self.store.release(reservation.id)

    async def charge(
        self,
        spec: ModelSpec,
        usage: Usage,
        context: RequestContext,
        *,
        operation: str,
        workflow_id: str | None,
        reservation: Reservation | None = None,
    ) -> float:
        """Writes (and commits) the ledger row, settling the hold; returns the cost in CHF."""
        rate = self.settings.usd_to_chf
        usd = cost_usd(spec, usage)
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
            cache_write_tokens=usage.cache_write_tokens,
            cost_usd=usd,
            cost_chf=usd * rate,
            usd_to_chf=rate,
        )
        held = reservation.id if reservation is not None and reservation.open else None
        if reservation is not None:
            reservation.open = False
            if held is not None and record.cost_chf > reservation.amount_chf:
                logger.warning(
                    "%s billed CHF %.6f, CHF %.6f more than the call's hold (%d input, %d "
                    "output tokens): the provider counted more than the prompt's bound",
                    spec.id,
                    record.cost_chf,
                    record.cost_chf - reservation.amount_chf,
                    usage.input_tokens,
                    usage.output_tokens,
                )
        await self.store.record(record, utc_now(), held)
        charged(
            spec.provider,
            spec.name,
            record.operation,
            (usage.input_tokens, usage.output_tokens),
            record.cost_chf,
        )
        return record.cost_chf
