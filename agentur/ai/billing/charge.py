"""The gateway's billing steps around a provider call: the preflight holds the call's worst
case against the mandate's balance and monthly limit (atomically, across workers), the charge
writes one ledger row with the real cost and settles the hold, a failed call releases it."""

from __future__ import annotations

from dataclasses import dataclass

from agentur.ai.billing.holder import current_holder
from agentur.ai.billing.ledger import LedgerRecord
from agentur.ai.billing.pricing import cost_usd
from agentur.ai.gateway_store import GatewayStore
from agentur.ai.mandate_ai_settings import MandateAiConfig
from agentur.ai.messages import Usage
from agentur.ai.model_spec import ModelSpec
from agentur.ai.settings import AiSettings
from agentur.context import RequestContext, utc_now
from agentur.observability.gen_ai import charged


@dataclass
class Reservation:
    """The hold of one call; `id` None when the mandate has neither balance nor limit."""

    id: str | None = None
    open: bool = True


@dataclass(frozen=True, slots=True)
class CallBilling:
    store: GatewayStore
    settings: AiSettings

    async def preflight(
        self,
        spec: ModelSpec,
        config: MandateAiConfig,
        context: RequestContext,
        *,
        input_tokens: int,
        output_tokens: int,
    ) -> Reservation:
        """Holds the worst case; raises `BudgetExceededError` when it does not fit."""
        if config.balance_chf is None and config.monthly_limit_chf is None:
            return Reservation()
        worst = cost_usd(spec, Usage(input_tokens, output_tokens)) * self.settings.usd_to_chf
        return Reservation(
            await self.store.reserve(
                context.mandate_id, worst, spec.id, utc_now(), holder=current_holder()
            )
        )

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
        await self.store.record(record, utc_now(), held)
        charged(
            spec.provider,
            spec.name,
            record.operation,
            (usage.input_tokens, usage.output_tokens),
            record.cost_chf,
        )
        return record.cost_chf
