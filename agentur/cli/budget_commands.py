"""`agentur mandates budget NAME …` — the operator's path to a mandate's money settings.

Whoever runs the CLI on the server has the database: the operator. Top-ups, raising or removing
the monthly limit and allowing unpriced models are theirs (a mandate admin may only lower, see
agentur/ai/billing/budget_changes.py); platform admins have the same over the API.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Annotated, Any

import typer

NONE_WORDS = ("none", "default")


def _amount(value: str | None, option: str) -> tuple[bool, float | None]:
    """(given, amount): `none`/`default` is None, anything else a number of CHF."""
    if value is None:
        return False, None
    if value.strip().lower() in NONE_WORDS:
        return True, None
    try:
        return True, float(value)
    except ValueError:
        raise ValueError(f"{option} takes an amount in CHF or 'none', not {value!r}") from None


def register(
    mandates_app: typer.Typer,
    run_with_runtime: Callable[[Callable[[Any], Awaitable[Any]]], Any],
    cli_errors: Callable[[Callable[..., None]], Callable[..., None]],
) -> None:
    """Handed main's helpers, so this module never imports main back (no import circle)."""

    @mandates_app.command("budget")
    @cli_errors
    def budget(
        mandate: Annotated[str, typer.Argument(help="The mandate's name.")],
        top_up: Annotated[
            float | None, typer.Option(help="CHF added to the prepaid balance (atomically).")
        ] = None,
        balance: Annotated[
            str | None, typer.Option(help="Set the prepaid balance in CHF; 'none': keep none.")
        ] = None,
        monthly_limit: Annotated[
            str | None,
            typer.Option(help="Set the monthly limit in CHF; 'default': the installation's."),
        ] = None,
        allow_unpriced: Annotated[
            bool | None,
            typer.Option("--allow-unpriced/--forbid-unpriced", help="Models without a price."),
        ] = None,
    ) -> None:
        """Show a mandate's balance, limit and this month's spending; change them as the
        operator."""
        changes: dict[str, Any] = {}
        for name, value, option in (
            ("balance_chf", balance, "--balance"),
            ("monthly_limit_chf", monthly_limit, "--monthly-limit"),
        ):
            given, amount = _amount(value, option)
            if given:
                changes[name] = amount
        if allow_unpriced is not None:
            changes["allow_unpriced"] = allow_unpriced

        async def work(runtime) -> str:  # type: ignore[no-untyped-def]
            from agentur.accounts.directory import find_mandate_by_name
            from agentur.ai.billing.budget_changes import top_up_balance
            from agentur.ai.billing.usage_report import limits_status
            from agentur.ai.mandate_ai_settings import (
                load_mandate_ai_config,
                update_mandate_ai_settings,
            )
            from agentur.context import utc_now

            async with runtime.database.transaction() as session:
                mandate_id = (await find_mandate_by_name(session, mandate)).id
                if changes:
                    await update_mandate_ai_settings(session, mandate_id, changes)
                if top_up is not None:
                    await top_up_balance(session, mandate_id, top_up)
            async with runtime.database.session() as session:
                config = await load_mandate_ai_config(session, mandate_id, runtime.ai.settings)
                status = await limits_status(session, mandate_id, config, utc_now())

            def shown(amount: float | None) -> str:
                return "none" if amount is None else f"{amount:.2f}"

            return (
                f"balance_chf={shown(config.balance_chf)} "
                f"monthly_limit_chf={shown(config.monthly_limit_chf)} "
                f"spent_this_month_chf={status.spent_this_month_chf:.2f} "
                f"allow_unpriced={str(config.allow_unpriced).lower()}"
            )

        typer.echo(run_with_runtime(work))
