"""The gateway's two billing steps around a provider call: the preflight (can the mandate
afford this call's worst case?) and the charge (one ledger row with the real cost)."""

from __future__ import annotations

from dataclasses import dataclass

from agentur.ai.billing.ledger import LedgerRecord
from agentur.ai.billing.preflight import check_budget
from agentur.ai.billing.pricing import cost_usd
from agentur.ai.gateway_store import GatewayStore
from agentur.ai.mandate_ai_settings import MandateAiConfig
from agentur.ai.messages import Usage
from agentur.ai.model_spec import ModelSpec
from agentur.ai.settings import AiSettings
from agentur.context import RequestContext, utc_now


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
    ) -> None:
        """Raises `BudgetExceededError` when the worst case does not fit."""
        if config.balance_chf is None and config.monthly_limit_chf is None:
            return
        worst = cost_usd(spec, Usage(input_tokens, output_tokens)) * self.settings.usd_to_chf
        spent = 0.0
        if config.monthly_limit_chf is not None:
            spent = await self.store.spent_this_month(context.mandate_id, utc_now())
        check_budget(config, worst_case_chf=worst, spent_this_month_chf=spent, model=spec.id)

    async def charge(
        self,
        spec: ModelSpec,
        usage: Usage,
        context: RequestContext,
        *,
        operation: str,
        workflow_id: str | None,
    ) -> float:
        """Writes (and commits) the ledger row; returns the cost in CHF."""
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
        await self.store.record(record, utc_now())
        return record.cost_chf
