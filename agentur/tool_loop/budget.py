"""The run's money budget: spend so far plus the worst case of the next call.

Before each round the loop asks `plan_call`: with the model's prices, the estimated input and
the largest output the model may produce, would the call fit in `max_cost_chf`? If not in full,
the output is capped to what still fits; if not even `min_output_tokens` fit, the run stops
with `budget_exceeded` before spending anything more.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

from agentur.ai.billing.pricing import cost_usd
from agentur.ai.messages import AiResponse, Usage
from agentur.ai.model_spec import ModelSpec


@dataclass(frozen=True, slots=True)
class CallPlan:
    allowed: bool
    max_output_tokens: int | None  # None: the model's own limit applies
    worst_case_chf: float
    reason: str = ""


@dataclass
class Budget:
    max_cost_chf: float | None
    usd_to_chf: float
    min_output_tokens: int = 256
    spent_chf: float = 0.0
    usage: Usage = field(default_factory=Usage)

    def price_chf(self, model: ModelSpec, input_tokens: int, output_tokens: int) -> float:
        # The gateway's own price function, so the plan and the bill agree.
        return cost_usd(model, Usage(input_tokens, output_tokens)) * self.usd_to_chf

    def record(self, response: AiResponse, model: ModelSpec | None) -> float:
        """Count a response; returns its cost. The gateway's price wins; when it reports none
        (a gateway without billing) the model's list price is used, so a budget still holds."""
        cost = response.cost_chf
        if not cost and model is not None:
            cost = self.price_chf(model, response.usage.input_tokens, response.usage.output_tokens)
        self.spent_chf += cost
        self.usage = self.usage + response.usage
        return cost

    @property
    def remaining_chf(self) -> float | None:
        return None if self.max_cost_chf is None else self.max_cost_chf - self.spent_chf

    def plan_call(self, model: ModelSpec, input_tokens: int) -> CallPlan:
        worst = self.price_chf(model, input_tokens, model.max_output_tokens)
        remaining = self.remaining_chf
        if remaining is None or worst <= remaining:
            return CallPlan(True, None, worst)
        input_cost = self.price_chf(model, input_tokens, 0)  # with the price per call, if any
        per_output_token = self.price_chf(model, 0, 1) - self.price_chf(model, 0, 0)
        affordable = (
            math.floor((remaining - input_cost) / per_output_token) if per_output_token else 0
        )
        if affordable >= self.min_output_tokens:
            capped = min(affordable, model.max_output_tokens)
            return CallPlan(True, capped, self.price_chf(model, input_tokens, capped))
        return CallPlan(
            False,
            0,
            worst,
            reason=f"the next call could cost CHF {worst:.4f} and only CHF "
            f"{max(remaining, 0):.4f} of the CHF {self.max_cost_chf:.4f} budget is left",
        )
