"""A mandate's AI settings (neutralization policy, custom terms, allowed providers and models,
unpriced models, balance and monthly limit): stored overrides over installation defaults."""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

from sqlalchemy import select
from sqlalchemy.ext.asyncio import AsyncSession

from agentur.ai.model_spec import ModelSpec
from agentur.ai.settings import AiSettings, NeutralizationPolicy
from agentur.errors import InvalidInputError
from agentur.storage.models.ai import MandateAiSettings

EDITABLE_FIELDS = (
    "neutralization_policy",
    "custom_terms",
    "allowed_providers",
    "allowed_models",
    "allow_unpriced",
    "balance_chf",
    "monthly_limit_chf",
)
AMOUNT_FIELDS = {"balance_chf", "monthly_limit_chf"}
# The largest balance or monthly limit in CHF: far above any real one, and every amount stays
# a finite number (an infinite one used to be stored as "no limit").
MAX_CHF = 1_000_000_000.0


@dataclass(frozen=True, slots=True)
class MandateAiConfig:
    neutralization_policy: NeutralizationPolicy
    custom_terms: tuple[str, ...] = ()
    allowed_providers: frozenset[str] | None = None  # None: all
    allowed_models: frozenset[str] | None = None  # None: all ("provider:model" ids)
    allow_unpriced: bool = False
    balance_chf: float | None = None  # None: no prepaid balance is kept
    monthly_limit_chf: float | None = None  # None: no limit

    def allows(self, spec: ModelSpec) -> bool:
        if self.allowed_providers is not None and spec.provider not in self.allowed_providers:
            return False
        return self.allowed_models is None or spec.id in self.allowed_models

    @classmethod
    def defaults(cls, settings: AiSettings) -> MandateAiConfig:
        return cls(
            neutralization_policy=settings.neutralization_policy,
            allow_unpriced=settings.allow_unpriced_models,
            monthly_limit_chf=settings.default_monthly_limit_chf,
        )

    @classmethod
    def from_row(cls, row: MandateAiSettings | None, settings: AiSettings) -> MandateAiConfig:
        base = cls.defaults(settings)
        if row is None:
            return base
        return cls(
            neutralization_policy=NeutralizationPolicy(row.neutralization_policy)
            if row.neutralization_policy
            else base.neutralization_policy,
            custom_terms=tuple(row.custom_terms or ()),
            allowed_providers=None
            if row.allowed_providers is None
            else frozenset(row.allowed_providers),
            allowed_models=None if row.allowed_models is None else frozenset(row.allowed_models),
            allow_unpriced=base.allow_unpriced
            if row.allow_unpriced is None
            else row.allow_unpriced,
            balance_chf=row.balance_chf,
            monthly_limit_chf=base.monthly_limit_chf
            if row.monthly_limit_chf is None
            else row.monthly_limit_chf,
        )


async def settings_row(session: AsyncSession, mandate_id: str) -> MandateAiSettings | None:
    return await session.scalar(
        select(MandateAiSettings).where(MandateAiSettings.mandate_id == mandate_id)
    )


async def load_mandate_ai_config(
    session: AsyncSession, mandate_id: str, settings: AiSettings
) -> MandateAiConfig:
    return MandateAiConfig.from_row(await settings_row(session, mandate_id), settings)


def check_amounts(changes: dict[str, Any]) -> None:
    for name in AMOUNT_FIELDS & changes.keys():
        amount = changes[name]
        if amount is not None and not (math.isfinite(amount) and 0 <= amount <= MAX_CHF):
            raise InvalidInputError(f"{name} must be a finite number from 0 to {MAX_CHF:.0f}")


async def update_mandate_ai_settings(
    session: AsyncSession, mandate_id: str, changes: dict[str, Any]
) -> MandateAiSettings:
    """Apply the given fields (others stay), as the operator may; the caller commits. A
    mandate admin's changes go through `billing.budget_changes.change_as_mandate_admin`."""
    check_amounts(changes)
    row = await settings_row(session, mandate_id)
    if row is None:
        row = MandateAiSettings(mandate_id=mandate_id, custom_terms=[])
        session.add(row)
    for name, value in changes.items():
        if name not in EDITABLE_FIELDS:
            raise KeyError(name)
        setattr(row, name, value)
    await session.flush()
    return row
