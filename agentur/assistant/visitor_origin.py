"""Which web origins may talk to an assistant: its definition's `allowed_origins`.

CORS headers alone only stop a browser from *reading* an answer — the request itself still
runs (a turn, a stored message, rate-limit budget spent). So a publishable key presented with
an `Origin` that is not listed is refused outright. A request without `Origin` is not a
cross-site browser request (browsers always send it on cross-origin fetches); a non-browser
client could forge any origin anyway, so refusing it would add no protection.
"""

from __future__ import annotations

from sqlalchemy import select
from sqlalchemy.ext.asyncio import AsyncSession

from agentur.errors import ForbiddenError
from agentur.storage.models.assistant import Assistant


def normalize_origin(origin: str) -> str:
    """`https://Shop.Example/` and `https://shop.example` name the same origin."""
    return origin.strip().rstrip("/").lower()


async def allowed_origins(session: AsyncSession, assistant_id: str) -> set[str]:
    """The assistant's allowed origins, normalized (empty when it does not exist)."""
    definition = await session.scalar(
        select(Assistant.definition).where(Assistant.id == assistant_id)
    )
    return {normalize_origin(o) for o in (definition or {}).get("allowed_origins", [])}


async def is_allowed_origin(session: AsyncSession, assistant_id: str, origin: str) -> bool:
    return normalize_origin(origin) in await allowed_origins(session, assistant_id)


async def check_visitor_origin(
    session: AsyncSession, assistant_id: str, origin: str | None
) -> None:
    """Raises 403 when a browser on an origin the assistant does not list uses its key."""
    if origin is None or await is_allowed_origin(session, assistant_id, origin):
        return
    raise ForbiddenError(
        f"origin {origin} may not use this assistant's publishable key "
        "(add it to the assistant's allowed_origins)"
    )
