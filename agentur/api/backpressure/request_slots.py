"""The request's side of the tenant limits: the slots a request takes, given back once it has
been answered — for a streamed answer, after its last byte — unless work that outlives the
request (an agent run) holds them to its own end."""

from __future__ import annotations

from collections.abc import AsyncIterator
from dataclasses import dataclass, field
from typing import Annotated

from fastapi import Depends, Request

from agentur.api.backpressure.tenant_limits import Slot, TenantLimits, WorkKind


def tenant_limits(request: Request) -> TenantLimits:
    """This worker's limits (one per app, built on first use)."""
    state = request.app.state
    if not hasattr(state, "tenant_limits"):
        state.tenant_limits = TenantLimits(state.runtime.all_settings.backpressure)
    limits: TenantLimits = state.tenant_limits
    return limits


@dataclass
class RequestSlots:
    limits: TenantLimits
    taken: list[Slot] = field(default_factory=list)

    async def take(self, kind: WorkKind, mandate_id: str) -> Slot:
        """A slot of `mandate_id` for `kind`; 429/503 with `Retry-After` when none is free."""
        slot = await self.limits.take(kind, mandate_id)
        self.taken.append(slot)
        return slot

    def give_back(self) -> None:
        for slot in self.taken:
            if slot.task is None:
                slot.release()


async def get_request_slots(request: Request) -> AsyncIterator[RequestSlots]:
    # FastAPI leaves a dependency with `yield` after the response is sent, streamed or not.
    slots = RequestSlots(tenant_limits(request))
    try:
        yield slots
    finally:
        slots.give_back()


RequestSlotsDep = Annotated[RequestSlots, Depends(get_request_slots)]
