"""The gateway's persistence on the shared database (both backends).

Workers share nothing but the database, so whatever must not interleave across them — a
workflow's placeholder map growing, a mandate's budget being held — runs under a lock on a
key of the database (`Database.locked`).
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import replace
from datetime import datetime, timedelta
from typing import TypeVar

from sqlalchemy import delete, func, select

from agentur.ai.billing.ledger import LedgerRecord, month_start, record_call, spent_since
from agentur.ai.billing.preflight import check_budget
from agentur.ai.mandate_ai_settings import MandateAiConfig, load_mandate_ai_config
from agentur.ai.neutralization.mapping_cipher import MappingCipher
from agentur.ai.neutralization.placeholder_map import PlaceholderMap
from agentur.ai.settings import AiSettings
from agentur.storage.database import Database
from agentur.storage.models.ai import AiReservation, MandateAiSettings, NeutralizationMapping

T = TypeVar("T")


def _budget_key(mandate_id: str) -> str:
    return f"ai-budget:{mandate_id}"


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

    # ------------------------------------------------------------------ budget

    async def reserve(
        self,
        mandate_id: str,
        worst_case_chf: float,
        model: str,
        now: datetime,
        holder: str | None = None,
    ) -> str:
        # Reservers of one mandate take turns (the lock); what they read is one statement, so
        # a charge committing meanwhile (ledger row, balance and hold in one transaction) is
        # seen either whole or not at all — `record` needs no lock.
        async with self.database.locked(_budget_key(mandate_id)) as session:
            holds = AiReservation.mandate_id == mandate_id
            row = select(MandateAiSettings).where(MandateAiSettings.mandate_id == mandate_id)
            balance, limit, held, spent, expired = (
                await session.execute(
                    select(
                        row.with_only_columns(MandateAiSettings.balance_chf).scalar_subquery(),
                        row.with_only_columns(
                            MandateAiSettings.monthly_limit_chf
                        ).scalar_subquery(),
                        select(func.coalesce(func.sum(AiReservation.amount_chf), 0.0))
                        .where(holds, AiReservation.expires_at > now)
                        .scalar_subquery(),
                        spent_since(mandate_id, month_start(now)).scalar_subquery(),
                        select(func.count())
                        .where(holds, AiReservation.expires_at <= now)
                        .scalar_subquery(),
                    )
                )
            ).one()
            if expired:  # left by workers that died
                await session.execute(
                    delete(AiReservation).where(holds, AiReservation.expires_at <= now)
                )
            defaults = MandateAiConfig.defaults(self.settings)
            check_budget(
                replace(
                    defaults,
                    balance_chf=balance,
                    monthly_limit_chf=defaults.monthly_limit_chf if limit is None else limit,
                ),
                worst_case_chf=worst_case_chf,
                spent_this_month_chf=float(spent),
                held_chf=float(held),
                model=model,
            )
            hold = AiReservation(
                mandate_id=mandate_id,
                amount_chf=worst_case_chf,
                holder=holder,
                expires_at=now + timedelta(seconds=self.settings.billing_reservation_seconds),
            )
            session.add(hold)
            await session.flush()
            return hold.id

    async def release(self, reservation_id: str) -> None:
        async with self.database.transaction() as session:
            await session.execute(delete(AiReservation).where(AiReservation.id == reservation_id))

    async def record(
        self, record: LedgerRecord, now: datetime, reservation_id: str | None = None
    ) -> None:
        async with self.database.transaction() as session:
            await record_call(session, record)
            if reservation_id is not None:
                await session.execute(
                    delete(AiReservation).where(AiReservation.id == reservation_id)
                )

    # ---------------------------------------------------------------- mappings

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

    async def update_mapping(
        self, mandate_id: str, workflow_id: str, work: Callable[[PlaceholderMap], T]
    ) -> tuple[PlaceholderMap, T]:
        """Load → work → save with the workflow's key locked across workers: two workers that
        neutralize new values of one workflow at once both end up in one map, neither
        overwriting the other's placeholders."""
        async with self.database.locked(f"neutralization:{mandate_id}:{workflow_id}") as session:
            row = await session.scalar(
                select(NeutralizationMapping).where(
                    NeutralizationMapping.mandate_id == mandate_id,
                    NeutralizationMapping.workflow_id == workflow_id,
                )
            )
            mapping = PlaceholderMap() if row is None else self.cipher.decrypt(row.ciphertext)
            result = work(mapping)
            if mapping.changed:
                token = self.cipher.encrypt(mapping)
                if row is None:
                    session.add(
                        NeutralizationMapping(
                            mandate_id=mandate_id, workflow_id=workflow_id, ciphertext=token
                        )
                    )
                else:
                    row.ciphertext = token
                mapping.changed = False
        return mapping, result
