from __future__ import annotations

from datetime import datetime

from fastapi import APIRouter
from pydantic import BaseModel

from agentur.api.dependencies import ContextDep
from agentur.api.problems import AUTHENTICATED
from agentur.context import get_request_now

router = APIRouter(tags=["me"], responses=AUTHENTICATED)


class MeOut(BaseModel):
    user_id: str
    mandate_id: str
    role: str
    feature_instance_id: str | None
    timezone: str
    language: str
    require_neutralization: bool
    now: datetime


@router.get("/me")
async def me(context: ContextDep) -> MeOut:
    """The request context the server derived from your key and headers."""
    return MeOut(
        user_id=context.user_id,
        mandate_id=context.mandate_id,
        role=context.role.value,
        feature_instance_id=context.feature_instance_id,
        timezone=context.timezone,
        language=context.language,
        require_neutralization=context.require_neutralization,
        now=get_request_now(context),
    )
