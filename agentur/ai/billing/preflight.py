"""The check before every call: can the mandate pay for the worst case of this call?"""

from __future__ import annotations

from agentur.ai.gateway_errors import BudgetExceededError
from agentur.ai.mandate_ai_settings import MandateAiConfig


def check_budget(
    config: MandateAiConfig, *, worst_case_chf: float, spent_this_month_chf: float, model: str
) -> None:
    if config.balance_chf is not None and worst_case_chf > config.balance_chf:
        raise BudgetExceededError(
            f"the mandate's AI balance of CHF {config.balance_chf:.4f} does not cover this "
            f"call's worst case of CHF {worst_case_chf:.4f} on {model}; top up the balance "
            "or lower max_output_tokens"
        )
    if config.monthly_limit_chf is not None:
        remaining = config.monthly_limit_chf - spent_this_month_chf
        if worst_case_chf > remaining:
            raise BudgetExceededError(
                f"the mandate's monthly AI limit of CHF {config.monthly_limit_chf:.2f} has "
                f"CHF {max(remaining, 0):.4f} left, less than this call's worst case of "
                f"CHF {worst_case_chf:.4f} on {model}"
            )
