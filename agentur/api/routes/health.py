from __future__ import annotations

from fastapi import APIRouter
from sqlalchemy import text

from agentur.api.dependencies import RuntimeDep

router = APIRouter(tags=["health"])


@router.get("/healthz")
async def healthz(runtime: RuntimeDep) -> dict[str, str]:
    """Liveness and database reachability; needs no key."""
    async with runtime.database.session() as session:
        await session.execute(text("SELECT 1"))
    return {"status": "ok", "database": runtime.database.engine.dialect.name}
