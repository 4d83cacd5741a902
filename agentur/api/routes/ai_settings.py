"""/v1/admin/ai-settings — the mandate's AI settings, for its admins (403 otherwise); and
/v1/admin/mandates/{id}/ai-settings — any mandate's, for platform admins (the operator).

Money settings are the operator's: a mandate admin may lower the prepaid balance and the monthly
limit and switch unpriced models off, but raising either amount, removing it and allowing
unpriced models are 403 (agentur/ai/billing/budget_changes.py). Platform admins may do all,
and top up a balance."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Depends
from pydantic import BaseModel, Field, StrictBool, StrictFloat

from agentur.accounts.directory import find_mandate
from agentur.ai.billing.budget_changes import change_as_mandate_admin, top_up_balance
from agentur.ai.mandate_ai_settings import (
    MAX_CHF,
    MandateAiConfig,
    load_mandate_ai_config,
    update_mandate_ai_settings,
)
from agentur.ai.settings import NeutralizationPolicy
from agentur.api.dependencies import ContextDep, RuntimeDep, SessionDep
from agentur.api.problems import AUTHENTICATED, problem_responses
from agentur.context import RequestContext
from agentur.errors import ForbiddenError

router = APIRouter(prefix="/admin/ai-settings", tags=["admin"], responses=AUTHENTICATED)
operator_router = APIRouter(prefix="/admin/mandates", tags=["admin"], responses=AUTHENTICATED)

MAX_CUSTOM_TERMS = 1_000
MAX_TERM_LENGTH = 200
MAX_ALLOWED_ENTRIES = 1_000  # providers or models on an allow-list
MAX_ID_LENGTH = 200
# Finite and bounded: `1e999` parses as infinity and would have been stored as "no limit".
ChfAmount = Annotated[StrictFloat, Field(ge=0, le=MAX_CHF, allow_inf_nan=False)]
AllowList = Annotated[
    list[Annotated[str, Field(min_length=1, max_length=MAX_ID_LENGTH)]],
    Field(max_length=MAX_ALLOWED_ENTRIES),
]


def require_mandate_admin(context: ContextDep) -> RequestContext:
    if not (context.is_mandate_admin or context.is_platform_admin):
        raise ForbiddenError("only the mandate's admins may read or change its AI settings")
    return context


def require_platform_admin(context: ContextDep) -> RequestContext:
    if not context.is_platform_admin:
        raise ForbiddenError("only platform admins (the operator) manage other mandates")
    return context


AdminDep = Annotated[RequestContext, Depends(require_mandate_admin)]
OperatorDep = Annotated[RequestContext, Depends(require_platform_admin)]


class AiSettingsOut(BaseModel):
    neutralization_policy: NeutralizationPolicy
    custom_terms: list[str]
    allowed_providers: list[str] | None
    allowed_models: list[str] | None
    allow_unpriced: bool
    balance_chf: float | None
    monthly_limit_chf: float | None

    @classmethod
    def of(cls, config: MandateAiConfig) -> AiSettingsOut:
        return cls(
            neutralization_policy=config.neutralization_policy,
            custom_terms=list(config.custom_terms),
            allowed_providers=None
            if config.allowed_providers is None
            else sorted(config.allowed_providers),
            allowed_models=None if config.allowed_models is None else sorted(config.allowed_models),
            allow_unpriced=config.allow_unpriced,
            balance_chf=config.balance_chf,
            monthly_limit_chf=config.monthly_limit_chf,
        )


class AiSettingsPatch(BaseModel):
    """Only the fields sent change; `null` for a list or the balance means "no restriction",
    for the monthly limit the installation's default. Raising or removing the balance or the
    limit and allowing unpriced models: platform admins only (403 for mandate admins)."""

    neutralization_policy: NeutralizationPolicy | None = None
    custom_terms: list[Annotated[str, Field(min_length=1, max_length=MAX_TERM_LENGTH)]] | None = (
        Field(default=None, max_length=MAX_CUSTOM_TERMS)
    )
    allowed_providers: AllowList | None = None
    allowed_models: AllowList | None = None
    allow_unpriced: StrictBool | None = None
    balance_chf: ChfAmount | None = None
    monthly_limit_chf: ChfAmount | None = None


class TopUp(BaseModel):
    amount_chf: Annotated[StrictFloat, Field(gt=0, le=MAX_CHF, allow_inf_nan=False)] = Field(
        description="Added to the prepaid balance (a mandate without one starts one)."
    )


async def _read(session: SessionDep, runtime: RuntimeDep, mandate_id: str) -> AiSettingsOut:
    return AiSettingsOut.of(await load_mandate_ai_config(session, mandate_id, runtime.ai.settings))


async def _change(
    patch: AiSettingsPatch,
    session: SessionDep,
    runtime: RuntimeDep,
    mandate_id: str,
    operator: bool,
) -> AiSettingsOut:
    changes = patch.model_dump(exclude_unset=True)
    if "custom_terms" in changes and changes["custom_terms"] is None:
        changes["custom_terms"] = []
    if "neutralization_policy" in changes and changes["neutralization_policy"] is not None:
        changes["neutralization_policy"] = changes["neutralization_policy"].value
    if operator:
        await update_mandate_ai_settings(session, mandate_id, changes)
    else:
        settings = runtime.ai.settings
        current = await load_mandate_ai_config(session, mandate_id, settings)
        defaults = MandateAiConfig.defaults(settings)
        await change_as_mandate_admin(session, mandate_id, changes, current, defaults)
    await session.commit()
    runtime.ai.store.forget_mandate_config(mandate_id)
    return await _read(session, runtime, mandate_id)


async def _known_mandate(session: SessionDep, mandate_id: str) -> str:
    return (await find_mandate(session, mandate_id)).id


@router.get("")
async def read_ai_settings(
    admin: AdminDep, session: SessionDep, runtime: RuntimeDep
) -> AiSettingsOut:
    return await _read(session, runtime, admin.mandate_id)


@router.patch("")
async def change_ai_settings(
    patch: AiSettingsPatch, admin: AdminDep, session: SessionDep, runtime: RuntimeDep
) -> AiSettingsOut:
    """A mandate admin may lower the money settings; raising them is the operator's (403)."""
    return await _change(patch, session, runtime, admin.mandate_id, admin.is_platform_admin)


@operator_router.get("/{mandate_id}/ai-settings", responses=problem_responses(404))
async def read_mandate_ai_settings(
    mandate_id: str, operator: OperatorDep, session: SessionDep, runtime: RuntimeDep
) -> AiSettingsOut:
    return await _read(session, runtime, await _known_mandate(session, mandate_id))


@operator_router.patch("/{mandate_id}/ai-settings", responses=problem_responses(404))
async def change_mandate_ai_settings(
    mandate_id: str,
    patch: AiSettingsPatch,
    operator: OperatorDep,
    session: SessionDep,
    runtime: RuntimeDep,
) -> AiSettingsOut:
    """Any change to any mandate's AI settings (platform admins)."""
    mandate_id = await _known_mandate(session, mandate_id)
    return await _change(patch, session, runtime, mandate_id, operator=True)


@operator_router.post("/{mandate_id}/ai-settings/top-ups", responses=problem_responses(404))
async def top_up_mandate_balance(
    mandate_id: str, top_up: TopUp, operator: OperatorDep, session: SessionDep, runtime: RuntimeDep
) -> AiSettingsOut:
    """Add to the mandate's prepaid balance, atomically beside concurrent charges."""
    await top_up_balance(session, await _known_mandate(session, mandate_id), top_up.amount_chf)
    await session.commit()
    runtime.ai.store.forget_mandate_config(mandate_id)
    return await _read(session, runtime, mandate_id)
