"""/v1/models — the active models with capabilities and prices."""

from __future__ import annotations

from fastapi import APIRouter
from pydantic import BaseModel

from agentur.api.dependencies import ContextDep, RuntimeDep
from agentur.api.problems import AUTHENTICATED

router = APIRouter(tags=["models"], responses=AUTHENTICATED)


class ModelOut(BaseModel):
    id: str
    provider: str
    name: str
    capabilities: list[str]
    context_window: int
    max_output_tokens: int
    embedding_dimensions: int | None
    # Per million tokens; None when the price is unknown.
    input_price_usd_per_mtok: float | None
    output_price_usd_per_mtok: float | None
    input_price_chf_per_mtok: float | None
    output_price_chf_per_mtok: float | None
    # Per call on top of the tokens (search engines bill per request); None: no such price.
    request_price_usd: float | None
    request_price_chf: float | None


class ModelsOut(BaseModel):
    items: list[ModelOut]
    usd_to_chf: float


def _chf(usd: float | None, rate: float) -> float | None:
    return None if usd is None else round(usd * rate, 6)


@router.get("/models")
async def list_models(runtime: RuntimeDep, context: ContextDep) -> ModelsOut:
    ai = runtime.ai
    rate = ai.usd_to_chf
    return ModelsOut(
        usd_to_chf=rate,
        items=[
            ModelOut(
                id=spec.id,
                provider=spec.provider,
                name=spec.name,
                capabilities=sorted(c.value for c in spec.capabilities),
                context_window=spec.context_window,
                max_output_tokens=spec.max_output_tokens,
                embedding_dimensions=spec.embedding_dimensions,
                input_price_usd_per_mtok=spec.input_price_usd_per_mtok,
                output_price_usd_per_mtok=spec.output_price_usd_per_mtok,
                input_price_chf_per_mtok=_chf(spec.input_price_usd_per_mtok, rate),
                output_price_chf_per_mtok=_chf(spec.output_price_usd_per_mtok, rate),
                request_price_usd=spec.request_price_usd,
                request_price_chf=_chf(spec.request_price_usd, rate),
            )
            for spec in sorted(ai.models(), key=lambda s: s.id)
        ],
    )
