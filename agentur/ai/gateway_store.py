"""What the gateway persists — mandate AI settings, neutralization mappings, budget
reservations, ledger rows — behind one small interface. `DatabaseGatewayStore` is the real
one; `MemoryGatewayStore` serves an `AiService` built without a database (unit tests,
scripts)."""

from __future__ import annotations

import uuid
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from datetime import datetime
from typing import Protocol, TypeVar

from agentur.ai.billing.ledger import LedgerRecord, month_start
from agentur.ai.billing.preflight import check_budget
from agentur.ai.mandate_ai_settings import MandateAiConfig
from agentur.ai.neutralization.placeholder_map import PlaceholderMap
from agentur.ai.settings import AiSettings

T = TypeVar("T")


class GatewayStore(Protocol):
    async def mandate_config(self, mandate_id: str) -> MandateAiConfig: ...

    async def reserve(
        self,
        mandate_id: str,
        worst_case_chf: float,
        model: str,
        now: datetime,
        holder: str | None = None,
    ) -> str:
        """Hold `worst_case_chf` against the balance and monthly limit, atomically across
        workers; `BudgetExceededError` when it does not fit beside what is already held.
        `holder` names the agent run the hold belongs to (see `billing.holder`)."""
        ...

    async def release(self, reservation_id: str) -> None:
        """Drop a hold whose call was never charged (it failed)."""
        ...

    async def load_mapping(self, mandate_id: str, workflow_id: str) -> PlaceholderMap: ...

    async def update_mapping(
        self, mandate_id: str, workflow_id: str, work: Callable[[PlaceholderMap], T]
    ) -> tuple[PlaceholderMap, T]:
        """`work` on the stored map with no other worker in between; the grown map saved."""
        ...

    async def record(
        self, record: LedgerRecord, now: datetime, reservation_id: str | None = None
    ) -> None:
        """The ledger row and the balance deduction, and the hold settled, in one go."""
        ...

    def forget_mandate_config(self, mandate_id: str) -> None:
        """Drop a cached config after an admin changed it."""
        ...


@dataclass
class MemoryGatewayStore:
    settings: AiSettings
    configs: dict[str, MandateAiConfig] = field(default_factory=dict)
    mappings: dict[tuple[str, str], PlaceholderMap] = field(default_factory=dict)
    ledger: list[tuple[datetime, LedgerRecord]] = field(default_factory=list)
    held: dict[str, tuple[str, float]] = field(default_factory=dict)  # id → mandate, CHF

    async def mandate_config(self, mandate_id: str) -> MandateAiConfig:
        return self.configs.get(mandate_id) or MandateAiConfig.defaults(self.settings)

    async def reserve(
        self,
        mandate_id: str,
        worst_case_chf: float,
        model: str,
        now: datetime,
        holder: str | None = None,  # no worker of its own can die: the holder is not kept
    ) -> str:
        # No await between the check and the hold: atomic within this process.
        since = month_start(now)
        check_budget(
            await self.mandate_config(mandate_id),
            worst_case_chf=worst_case_chf,
            spent_this_month_chf=sum(
                r.cost_chf for at, r in self.ledger if r.mandate_id == mandate_id and at >= since
            ),
            held_chf=sum(chf for owner, chf in self.held.values() if owner == mandate_id),
            model=model,
        )
        reservation_id = uuid.uuid4().hex
        self.held[reservation_id] = (mandate_id, worst_case_chf)
        return reservation_id

    async def release(self, reservation_id: str) -> None:
        self.held.pop(reservation_id, None)

    async def load_mapping(self, mandate_id: str, workflow_id: str) -> PlaceholderMap:
        return self.mappings.get((mandate_id, workflow_id)) or PlaceholderMap()

    async def update_mapping(
        self, mandate_id: str, workflow_id: str, work: Callable[[PlaceholderMap], T]
    ) -> tuple[PlaceholderMap, T]:
        mapping = await self.load_mapping(mandate_id, workflow_id)
        result = work(mapping)
        self.mappings[(mandate_id, workflow_id)] = mapping
        return mapping, result

    async def record(
        self, record: LedgerRecord, now: datetime, reservation_id: str | None = None
    ) -> None:
        if reservation_id is not None:
            self.held.pop(reservation_id, None)
        self.ledger.append((now, record))
        config = self.configs.get(record.mandate_id)
        if config is not None and config.balance_chf is not None:
            self.configs[record.mandate_id] = replace(
                config, balance_chf=config.balance_chf - record.cost_chf
            )

    def forget_mandate_config(self, mandate_id: str) -> None:
        return None
