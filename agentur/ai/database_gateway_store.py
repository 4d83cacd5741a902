"""The gateway's persistence on the shared database (both backends)."""

from __future__ import annotations

import time
from datetime import datetime

from sqlalchemy import select

from agentur.ai.billing.ledger import LedgerRecord, month_start, record_call, spent_since
from agentur.ai.mandate_ai_settings import MandateAiConfig, load_mandate_ai_config
from agentur.ai.neutralization.mapping_cipher import MappingCipher
from agentur.ai.neutralization.placeholder_map import PlaceholderMap
from agentur.ai.settings import AiSettings
from agentur.storage.database import Database
from agentur.storage.models.ai import NeutralizationMapping


class DatabaseGatewayStore:
    def __init__(self, database: Database, settings: AiSettings, cipher: MappingCipher) -> None:
        self.database = database
        self.settings = settings
        self.cipher = cipher
        # A short per-worker cache: the settings row is read on every call otherwise.
        self._configs: dict[str, tuple[float, MandateAiConfig]] = {}

    async def mandate_config(self, mandate_id: str) -> MandateAiConfig:
        cached = self._configs.get(mandate_id)
        ttl = self.settings.mandate_settings_cache_seconds
        if cached is not None and time.monotonic() - cached[0] < ttl:
            return cached[1]
        async with self.database.session() as session:
            config = await load_mandate_ai_config(session, mandate_id, self.settings)
        if ttl > 0 and config.balance_chf is None:
            # Balances change with every call, so configs that keep one are never cached.
            self._configs[mandate_id] = (time.monotonic(), config)
        return config

    def forget_mandate_config(self, mandate_id: str) -> None:
        self._configs.pop(mandate_id, None)

    async def spent_this_month(self, mandate_id: str, now: datetime) -> float:
        # Read before every call of a mandate with a monthly limit: a plain connection (see
        # `load_mapping`).
        async with self.database.engine.connect() as connection:
            return await spent_since(connection, mandate_id, month_start(now))

    async def load_mapping(self, mandate_id: str, workflow_id: str) -> PlaceholderMap:
        # A plain connection, not an ORM session: read on every neutralized call, and a
        # session's close costs SQLite one more driver round trip (a second rollback).
        async with self.database.engine.connect() as connection:
            token = await connection.scalar(
                select(NeutralizationMapping.ciphertext).where(
                    NeutralizationMapping.mandate_id == mandate_id,
                    NeutralizationMapping.workflow_id == workflow_id,
                )
            )
        return PlaceholderMap() if token is None else self.cipher.decrypt(token)

    async def save_mapping(
        self, mandate_id: str, workflow_id: str, mapping: PlaceholderMap
    ) -> None:
        token = self.cipher.encrypt(mapping)
        async with self.database.transaction() as session:
            row = await session.scalar(
                select(NeutralizationMapping)
                .where(
                    NeutralizationMapping.mandate_id == mandate_id,
                    NeutralizationMapping.workflow_id == workflow_id,
                )
                .with_for_update()
            )
            if row is None:
                session.add(
                    NeutralizationMapping(
                        mandate_id=mandate_id, workflow_id=workflow_id, ciphertext=token
                    )
                )
            else:
                row.ciphertext = token

    async def record(self, record: LedgerRecord, now: datetime) -> None:
        async with self.database.transaction() as session:
            await record_call(session, record)
