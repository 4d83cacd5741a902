"""/v1/admin/ai-settings — the mandate's AI settings; mandate admins only (403 otherwise)."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Depends
from pydantic import BaseModel, Field, StrictBool, StrictFloat

from agentur.ai.mandate_ai_settings import (
    MAX_CHF,
    MandateAiConfig,
    load_mandate_ai_config,
    update_mandate_ai_settings,
)
from agentur.ai.settings import NeutralizationPolicy
from agentur.api.dependencies import ContextDep, RuntimeDep, SessionDep
from agentur.api.problems import AUTHENTICATED
from agentur.context import RequestContext
from agentur.errors import ForbiddenError

router = APIRouter(prefix="/admin/ai-settings", tags=["admin"], responses=AUTHENTICATED)

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
    if not context.is_mandate_admin:
        raise ForbiddenError("only the mandate's admins may read or change its AI settings")
    return context


AdminDep = Annotated[RequestContext, Depends(require_mandate_admin)]


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
    """Only the fields sent change; `null` for a list or limit means "no restriction"."""

    neutralization_policy: NeutralizationPolicy | None = None
    custom_terms: list[Annotated[str, Field(min_length=1, max_length=MAX_TERM_LENGTH)]] | None = (
        Field(default=None, max_length=MAX_CUSTOM_TERMS)
    )
    allowed_providers: AllowList | None = None
    allowed_models: AllowList | None = None
    allow_unpriced: StrictBool | None = None
    balance_chf: ChfAmount | None = None
    monthly_limit_chf: ChfAmount | None = None


@router.get("")
async def read_ai_settings(
    admin: AdminDep, session: SessionDep, runtime: RuntimeDep
) -> AiSettingsOut:
    config = await load_mandate_ai_config(session, admin.mandate_id, runtime.ai.settings)
    return AiSettingsOut.of(config)


@router.patch("")
async def change_ai_settings(
    patch: AiSettingsPatch, admin: AdminDep, session: SessionDep, runtime: RuntimeDep
) -> AiSettingsOut:
    changes = patch.model_dump(exclude_unset=True)
    if "custom_terms" in changes and changes["custom_terms"] is None:
        changes["custom_terms"] = []
    if "neutralization_policy" in changes and changes["neutralization_policy"] is not None:
        changes["neutralization_policy"] = changes["neutralization_policy"].value
    await update_mandate_ai_settings(session, admin.mandate_id, changes)
    await session.commit()
    runtime.ai.store.forget_mandate_config(admin.mandate_id)
    config = await load_mandate_ai_config(session, admin.mandate_id, runtime.ai.settings)
    return AiSettingsOut.of(config)
