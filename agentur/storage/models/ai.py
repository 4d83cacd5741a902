"""Tables of the AI gateway: per-mandate AI settings, the billing ledger, and the encrypted
neutralization mappings per workflow."""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import (
    JSON,
    Boolean,
    Float,
    ForeignKey,
    Index,
    Integer,
    LargeBinary,
    String,
    UniqueConstraint,
)
from sqlalchemy.orm import Mapped, mapped_column

from agentur.storage.models.base import Base, IdMixin, TimestampMixin, UtcDateTime, utc_now


class MandateAiSettings(IdMixin, TimestampMixin, Base):
    """One row per mandate that changed anything; a missing row or NULL column means the
    installation default from `AiSettings`."""

    __tablename__ = "mandate_ai_settings"

    mandate_id: Mapped[str] = mapped_column(
        ForeignKey("mandates.id", ondelete="CASCADE"), unique=True
    )
    neutralization_policy: Mapped[str | None] = mapped_column(String(16), nullable=True)
    custom_terms: Mapped[list[str]] = mapped_column(JSON, default=list)
    # NULL: every configured provider / model is allowed.
    allowed_providers: Mapped[list[str] | None] = mapped_column(JSON, nullable=True)
    allowed_models: Mapped[list[str] | None] = mapped_column(JSON, nullable=True)
    allow_unpriced: Mapped[bool | None] = mapped_column(Boolean, nullable=True)
    # Prepaid credit; each call's cost is deducted. NULL: no balance is kept.
    balance_chf: Mapped[float | None] = mapped_column(Float, nullable=True)
    monthly_limit_chf: Mapped[float | None] = mapped_column(Float, nullable=True)


class AiLedgerEntry(IdMixin, Base):
    __tablename__ = "ai_ledger"
    __table_args__ = (
        Index("ix_ai_ledger_mandate_created", "mandate_id", "created_at"),
        Index("ix_ai_ledger_mandate_workflow", "mandate_id", "workflow_id"),
    )

    mandate_id: Mapped[str] = mapped_column(ForeignKey("mandates.id", ondelete="CASCADE"))
    # Plain ids, no foreign keys: the ledger outlives deleted users and workflows.
    user_id: Mapped[str] = mapped_column(String(36))
    workflow_id: Mapped[str | None] = mapped_column(String(36), nullable=True)
    operation: Mapped[str] = mapped_column(String(32))
    model: Mapped[str] = mapped_column(String(200))
    provider: Mapped[str] = mapped_column(String(64))
    input_tokens: Mapped[int] = mapped_column(Integer, default=0)
    output_tokens: Mapped[int] = mapped_column(Integer, default=0)
    # Parts of input_tokens: read from the provider's prompt cache / written to it.
    cached_tokens: Mapped[int] = mapped_column(Integer, default=0)
    cache_write_tokens: Mapped[int] = mapped_column(Integer, default=0)
    cost_usd: Mapped[float] = mapped_column(Float, default=0.0)
    cost_chf: Mapped[float] = mapped_column(Float, default=0.0)
    usd_to_chf: Mapped[float] = mapped_column(Float)
    created_at: Mapped[datetime] = mapped_column(UtcDateTime(), default=utc_now)


class AiReservation(IdMixin, Base):
    """The worst-case cost held for a call in progress, so that concurrent calls together
    never spend more than the balance or the monthly limit. Deleted when the call is charged
    (or fails); one left behind by a worker that died stops counting at `expires_at`."""

    __tablename__ = "ai_reservations"
    __table_args__ = (Index("ix_ai_reservations_mandate_expires", "mandate_id", "expires_at"),)

    mandate_id: Mapped[str] = mapped_column(ForeignKey("mandates.id", ondelete="CASCADE"))
    amount_chf: Mapped[float] = mapped_column(Float)
    expires_at: Mapped[datetime] = mapped_column(UtcDateTime())
    # The agent run that made the call, so recovering a dead run releases its holds at once.
    holder: Mapped[str | None] = mapped_column(String(36), nullable=True, index=True)


class NeutralizationMapping(IdMixin, TimestampMixin, Base):
    __tablename__ = "neutralization_mappings"
    __table_args__ = (UniqueConstraint("mandate_id", "workflow_id"),)

    mandate_id: Mapped[str] = mapped_column(ForeignKey("mandates.id", ondelete="CASCADE"))
    workflow_id: Mapped[str] = mapped_column(String(36))
    # Fernet token of the placeholder map's JSON; the key never lives in the database.
    ciphertext: Mapped[bytes] = mapped_column(LargeBinary)
