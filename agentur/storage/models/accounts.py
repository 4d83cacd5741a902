"""Users, mandates (tenants), memberships, feature instances and API keys."""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import Boolean, ForeignKey, String, Text, UniqueConstraint
from sqlalchemy.orm import Mapped, mapped_column

from agentur.storage.models.base import Base, IdMixin, TimestampMixin, UtcDateTime


class User(IdMixin, TimestampMixin, Base):
    __tablename__ = "users"

    email: Mapped[str] = mapped_column(String(320), unique=True)
    display_name: Mapped[str] = mapped_column(String(200), default="")
    is_platform_admin: Mapped[bool] = mapped_column(Boolean, default=False)
    is_active: Mapped[bool] = mapped_column(Boolean, default=True)


class Mandate(IdMixin, TimestampMixin, Base):
    __tablename__ = "mandates"

    name: Mapped[str] = mapped_column(String(200), unique=True)


class Membership(IdMixin, TimestampMixin, Base):
    __tablename__ = "memberships"
    __table_args__ = (UniqueConstraint("user_id", "mandate_id"),)

    user_id: Mapped[str] = mapped_column(ForeignKey("users.id", ondelete="CASCADE"), index=True)
    mandate_id: Mapped[str] = mapped_column(
        ForeignKey("mandates.id", ondelete="CASCADE"), index=True
    )
    role: Mapped[str] = mapped_column(String(16))


class FeatureInstance(IdMixin, TimestampMixin, Base):
    __tablename__ = "feature_instances"

    mandate_id: Mapped[str] = mapped_column(
        ForeignKey("mandates.id", ondelete="CASCADE"), index=True
    )
    feature_code: Mapped[str] = mapped_column(String(64))
    name: Mapped[str] = mapped_column(String(200), default="")
    # Domain hints for the feature-data sub-agent of this instance (T6), e.g. conventions.
    agent_hints: Mapped[str | None] = mapped_column(Text, nullable=True)


class ApiKey(IdMixin, TimestampMixin, Base):
    __tablename__ = "api_keys"

    # The public part of the key, used to find the row; the secret part is only stored hashed.
    lookup_id: Mapped[str] = mapped_column(String(32), unique=True)
    secret_hash: Mapped[str] = mapped_column(String(64))
    user_id: Mapped[str] = mapped_column(ForeignKey("users.id", ondelete="CASCADE"), index=True)
    mandate_id: Mapped[str] = mapped_column(
        ForeignKey("mandates.id", ondelete="CASCADE"), index=True
    )
    name: Mapped[str] = mapped_column(String(200), default="")
    expires_at: Mapped[datetime | None] = mapped_column(UtcDateTime(), nullable=True)
    revoked_at: Mapped[datetime | None] = mapped_column(UtcDateTime(), nullable=True)
    last_used_at: Mapped[datetime | None] = mapped_column(UtcDateTime(), nullable=True)
