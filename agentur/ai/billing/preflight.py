"""The check before every call: can the mandate pay for the worst case of this call, on top
of what calls in progress already hold? A balance (or month) a provider's excess took below
zero fits no call, not even a free one, until it is topped up."""

from __future__ import annotations

from agentur.ai.gateway_errors import BudgetExceededError
from agentur.ai.mandate_ai_settings import MandateAiConfig


def _held(held_chf: float) -> str:
    return f" with CHF {held_chf:.4f} held by calls in progress" if held_chf else ""


def check_budget(
    config: MandateAiConfig,
    *,
    worst_case_chf: float,
    spent_this_month_chf: float,
    model: str,
    held_chf: float = 0.0,
) -> None:
    if config.balance_chf is not None and config.balance_chf < 0:
        raise BudgetExceededError(
            f"the mandate's AI balance is CHF {config.balance_chf:.4f}, below zero (a provider "
            f"billed more than a call's hold); top it up before calling {model}"
        )
    if config.balance_chf is not None and worst_case_chf > config.balance_chf - held_chf:
        raise BudgetExceededError(
            f"the mandate's AI balance of CHF {config.balance_chf:.4f}{_held(held_chf)} does "
            f"not cover this call's worst case of CHF {worst_case_chf:.4f} on {model}; top up "
            "the balance or lower max_output_tokens"
        )
    if config.monthly_limit_chf is not None:
        remaining = config.monthly_limit_chf - spent_this_month_chf - held_chf
        if worst_case_chf > remaining:
            raise BudgetExceededError(
                f"the mandate's monthly AI limit of CHF {config.monthly_limit_chf:.2f} has "
                f"CHF {max(remaining, 0):.4f} left{_held(held_chf)}, less than this call's "
                f"worst case of CHF {worst_case_chf:.4f} on {model}"
            )
