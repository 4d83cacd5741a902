"""What the gateway persists — mandate AI settings, neutralization mappings, ledger rows —
behind one small interface. `DatabaseGatewayStore` is the real one; `MemoryGatewayStore`
serves an `AiService` built without a database (unit tests, scripts)."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime
from typing import Protocol

from agentur.ai.billing.ledger import LedgerRecord, month_start
from agentur.ai.mandate_ai_settings import MandateAiConfig
from agentur.ai.neutralization.placeholder_map import PlaceholderMap
from agentur.ai.settings import AiSettings


class GatewayStore(Protocol):
    async def mandate_config(self, mandate_id: str) -> MandateAiConfig: ...

    async def spent_this_month(self, mandate_id: str, now: datetime) -> float: ...

    async def load_mapping(self, mandate_id: str, workflow_id: str) -> PlaceholderMap: ...

    async def save_mapping(
        self, mandate_id: str, workflow_id: str, mapping: PlaceholderMap
    ) -> None: ...

    async def record(self, record: LedgerRecord, now: datetime) -> None: ...

    def forget_mandate_config(self, mandate_id: str) -> None:
        """Drop a cached config after an admin changed it."""
        ...


@dataclass
class MemoryGatewayStore:
    settings: AiSettings
    configs: dict[str, MandateAiConfig] = field(default_factory=dict)
    mappings: dict[tuple[str, str], PlaceholderMap] = field(default_factory=dict)
    ledger: list[tuple[datetime, LedgerRecord]] = field(default_factory=list)

    async def mandate_config(self, mandate_id: str) -> MandateAiConfig:
        return self.configs.get(mandate_id) or MandateAiConfig.defaults(self.settings)

    async def spent_this_month(self, mandate_id: str, now: datetime) -> float:
        since = month_start(now)
        return sum(
            r.cost_chf for at, r in self.ledger if r.mandate_id == mandate_id and at >= since
        )

    async def load_mapping(self, mandate_id: str, workflow_id: str) -> PlaceholderMap:
        return self.mappings.get((mandate_id, workflow_id)) or PlaceholderMap()

    async def save_mapping(
        self, mandate_id: str, workflow_id: str, mapping: PlaceholderMap
    ) -> None:
        self.mappings[(mandate_id, workflow_id)] = mapping

    async def record(self, record: LedgerRecord, now: datetime) -> None:
        self.ledger.append((now, record))
        config = self.configs.get(record.mandate_id)
        if config is not None and config.balance_chf is not None:
            from dataclasses import replace

            self.configs[record.mandate_id] = replace(
                config, balance_chf=config.balance_chf - record.cost_chf
            )

    def forget_mandate_config(self, mandate_id: str) -> None:
        return None
