"""Who may change a mandate's money settings, and how each change holds under races.

The prepaid balance limits what a mandate's own admins can spend only if they cannot raise it:
topping it up, raising or removing the monthly limit and allowing unpriced models are operator
(platform admin) actions. A mandate admin may lower the balance and the limit and switch
unpriced models off. Lowering is one conditional UPDATE — the new amount or the stored one,
whichever is lower — so a concurrent charge or an operator's change in between can never turn
an admin's "lower" into a raise; a top-up is one atomic increment beside concurrent charges.
"""

from __future__ import annotations

from typing import Any

from sqlalchemy import case, or_, update
from sqlalchemy.dialects.postgresql import insert as pg_insert
from sqlalchemy.dialects.sqlite import insert as sqlite_insert
from sqlalchemy.ext.asyncio import AsyncSession

from agentur.ai.mandate_ai_settings import (
    AMOUNT_FIELDS,
    MAX_CHF,
    MandateAiConfig,
    check_amounts,
    update_mandate_ai_settings,
)
from agentur.errors import ForbiddenError, InvalidInputError
from agentur.storage.models.ai import MandateAiSettings

WIDENING = {
    "balance_chf": "raise or remove the prepaid balance",
    "monthly_limit_chf": "raise or remove the monthly limit",
    "allow_unpriced": "allow unpriced models",
}


def _above(new: float | None, current: float | None) -> bool:
    """Whether `new` allows more spending than `current` (None: no limit at all)."""
    if current is None:
        return False
    return new is None or new > current


def widening_changes(
    current: MandateAiConfig, defaults: MandateAiConfig, changes: dict[str, Any]
) -> list[str]:
    """The fields of `changes` that let the mandate spend more than it may now."""
    found = []
    if "balance_chf" in changes and _above(changes["balance_chf"], current.balance_chf):
        found.append("balance_chf")
    if "monthly_limit_chf" in changes:
        # A limit of null falls back to the installation's default limit.
        new = changes["monthly_limit_chf"]
        effective = defaults.monthly_limit_chf if new is None else new
        if _above(effective, current.monthly_limit_chf):
            found.append("monthly_limit_chf")
    if changes.get("allow_unpriced") is True and not current.allow_unpriced:
        found.append("allow_unpriced")
    return found


async def _ensure_row(session: AsyncSession, mandate_id: str) -> None:
    """The mandate's settings row, created unless a concurrent request just did."""
    insert = pg_insert if session.get_bind().dialect.name == "postgresql" else sqlite_insert
    await session.execute(
        insert(MandateAiSettings)
        .values(mandate_id=mandate_id)
        .on_conflict_do_nothing(index_elements=[MandateAiSettings.mandate_id])
    )


async def _lower(
    session: AsyncSession, mandate_id: str, name: str, value: float | None, default: float | None
) -> None:
    """Store `value` unless the stored amount is lower already (NULL counts as `default`)."""
    column = getattr(MandateAiSettings, name)
    row = MandateAiSettings.mandate_id == mandate_id
    if value is None:  # back to the default limit: only when that is not a raise
        if default is None:
            return  # widening_changes refused every case where this would change anything
        guard = or_(column.is_(None), column >= default)
        await session.execute(update(MandateAiSettings).where(row, guard).values({name: None}))
        return
    lowered = case((or_(column.is_(None), column > value), value), else_=column)
    await session.execute(update(MandateAiSettings).where(row).values({name: lowered}))


async def change_as_mandate_admin(
    session: AsyncSession,
    mandate_id: str,
    changes: dict[str, Any],
    current: MandateAiConfig,
    defaults: MandateAiConfig,
) -> None:
    """Apply a mandate admin's changes: `ForbiddenError` naming every change that would widen
    spending; amounts only ever go down. The caller commits."""
    if widening := widening_changes(current, defaults, changes):
        actions = "; ".join(f"{field} ({WIDENING[field]})" for field in widening)
        raise ForbiddenError(
            f"only a platform admin (the operator) may {actions}; a mandate admin may lower "
            "the balance and the monthly limit and switch unpriced models off"
        )
    check_amounts(changes)
    rest = {name: value for name, value in changes.items() if name not in AMOUNT_FIELDS}
    if rest.get("allow_unpriced") is True:
        del rest["allow_unpriced"]  # allowed already: writing it could undo an operator's "no"
    await _ensure_row(session, mandate_id)
    await update_mandate_ai_settings(session, mandate_id, rest)
    for name in AMOUNT_FIELDS & changes.keys():
        default = defaults.monthly_limit_chf if name == "monthly_limit_chf" else None
        await _lower(session, mandate_id, name, changes[name], default)


async def top_up_balance(session: AsyncSession, mandate_id: str, amount_chf: float) -> None:
    """Add `amount_chf` to the prepaid balance in one UPDATE (a mandate without a balance
    starts one). Operators only; the caller checks and commits."""
    if not 0 < amount_chf <= MAX_CHF:
        raise InvalidInputError(f"amount_chf must be above 0 and at most {MAX_CHF:.0f}")
    await _ensure_row(session, mandate_id)
    balance = MandateAiSettings.balance_chf
    topped = case((balance.is_(None), amount_chf), else_=balance + amount_chf)
    await session.execute(
        update(MandateAiSettings)
        .where(MandateAiSettings.mandate_id == mandate_id)
        .values(balance_chf=topped)
    )
